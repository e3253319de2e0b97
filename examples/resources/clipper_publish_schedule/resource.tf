data "clipper_social_accounts" "youtube" {
  platform = "YOUTUBE"
}

# The talk's first clip on the YouTube channel, Monday 4 March 2030 at 9:00
# in Berlin. The service gets the same instant in UTC; the time may pass
# without a diff. The clip's id comes from the project, where it stays known
# when the project changes in place (a schedule that fired and is replaced
# publishes again; the plan warns).
resource "clipper_publish_schedule" "launch" {
  content_id      = clipper_clip_project.talk.clips[0].id
  post_account_id = data.clipper_social_accounts.youtube.accounts[0].post_account_id
  publish_at      = "2030-03-04T09:00:00+01:00"

  title       = "How we cut our build times in half"
  description = "The short version of the talk. #devops #ci"
  media_type  = "VIDEO"
  privacy     = "public"
}
