# Beeps out the profanity heard in the talk's first clip. Its export and
# preview addresses serve the censored render once the job concludes.
resource "clipper_censor_job" "first_clip" {
  content_id = clipper_clip_project.talk.clips[0].id
  beep_sound = true

  timeouts = {
    create = "15m"
  }
}
