data "clipper_social_accounts" "youtube" {
  platform = "YOUTUBE"
}

output "youtube_channels" {
  value = { for a in data.clipper_social_accounts.youtube.accounts : a.ext_user_name => a.post_account_id }
}
