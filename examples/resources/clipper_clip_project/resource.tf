# A local recording, uploaded when the project is created.
resource "clipper_clip_project" "talk" {
  source_file = "${path.module}/talk.mp4"
  source_hash = filesha256("${path.module}/talk.mp4")
  title       = "Conference talk"
  source_lang = "en"
  visibility  = "PUBLIC_VIEW"

  curation = {
    model          = "ClipBasic"
    clip_durations = [[15, 30], [30, 60]]
    topic_keywords = ["terraform", "automation"]
    genre          = "Podcast"
  }

  render = {
    layout_aspect_ratio = "portrait"
    remove_filler_words = true
    enable_caption      = true
    highlight_color = {
      primary = "#FFCC00"
    }
    font = {
      family         = "Inter"
      numerical_size = 48
      stroke = {
        enabled = true
        color   = "#000000"
        width   = 2
      }
    }
  }

  conclusion_actions = [
    {
      type           = "WEBHOOK"
      url            = "https://hooks.example.com/clipper"
      notify_failure = true
    },
    {
      type  = "EMAIL"
      email = "video-team@example.com"
    },
  ]

  timeouts = {
    create = "90m"
  }
}

# The clips, once the project is COMPLETE: ids for posts, schedules and
# collections, download addresses, lengths.
output "talk_clips" {
  value = [for c in clipper_clip_project.talk.clips : {
    id           = c.id
    title        = c.title
    download     = c.uri_for_export
    duration_sec = c.duration_ms / 1000
  }]
}

# A public video, clipped with ClipAnything over its first ten minutes.
resource "clipper_clip_project" "stream" {
  video_url         = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
  brand_template_id = "preset-fancy-Gameplay"

  curation = {
    model         = "ClipAnything"
    custom_prompt = "the most surprising plays"
    range = {
      start_sec = 0
      end_sec   = 600
    }
  }

  render = {
    layout_aspect_ratio = "landscape"
  }
}

# A recording produced by the same apply: source_file is read when the
# project is created, not at plan time. Without waiting, a stall shows as a
# warning on later refreshes.
resource "terraform_data" "cut" {
  input = "${path.module}/build/intro.mp4"
  provisioner "local-exec" {
    command = "ffmpeg -y -i ${path.module}/raw.mp4 -t 600 -c copy ${self.input}"
  }
}

resource "clipper_clip_project" "intro" {
  source_file         = terraform_data.cut.output
  wait_for_completion = false

  render = {
    screen_overlays = [
      {
        file_id = "upl_logo_123"
        style   = "corner"
      },
    ]
  }
}
