# Turn a local video into portrait clips of 10 to 30 seconds.
#
#   export CLIPPER_API_KEY=...   # and CLIPPER_BASE_URL for a self-hosted clipperd
#   terraform init && terraform apply -var source_file=./talk.mp4

terraform {
  required_providers {
    clipper = {
      source = "clipperhq/clipper"
    }
  }
}

variable "source_file" {
  description = "Path of the video to clip."
  type        = string
}

# No api_key here: it comes from CLIPPER_API_KEY.
provider "clipper" {}

resource "clipper_clip_project" "quickstart" {
  source_file = var.source_file
  source_hash = filesha256(var.source_file)

  curation = {
    clip_durations = [[10, 30]]
  }

  render = {
    layout_aspect_ratio = "portrait"
  }
}

data "clipper_exportable_clips" "quickstart" {
  project_id = clipper_clip_project.quickstart.id
}

output "clips" {
  description = "Download address and length of each clip."
  value = [
    for c in data.clipper_exportable_clips.quickstart.clips : {
      uri_for_export = c.uri_for_export
      duration_sec   = c.duration_ms / 1000
    }
  ]
}
