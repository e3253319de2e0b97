data "clipper_social_accounts" "twitter" {
  platform = "TWITTER"
}

# Copy written for X (Twitter): title, description and hashtags fit its limit
# together.
data "clipper_social_copy" "teaser" {
  content_id      = clipper_clip_project.talk.clips[0].id
  post_account_id = data.clipper_social_accounts.twitter.accounts[0].post_account_id
  prompt          = "witty, for developers"

  timeouts = {
    read = "2m"
  }
}

output "teaser" {
  value = join("\n\n", [
    data.clipper_social_copy.teaser.title,
    data.clipper_social_copy.teaser.description,
    data.clipper_social_copy.teaser.hashtags,
  ])
}
