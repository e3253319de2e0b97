# Turn a local video into portrait clips of 10 to 30 seconds, put the first
# clip in a collection and, given a connected account, schedule it there.
#
#   export CLIPPER_API_KEY=...   # and CLIPPER_BASE_URL for a self-hosted clipperd
#   terraform init && terraform apply -var source_file=./talk.mp4 \
#     -var post_account_id=pa_... -var publish_at=2026-12-01T09:00:00Z

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

variable "post_account_id" {
  description = "A connected social account (data.clipper_social_accounts lists them); null schedules nothing."
  type        = string
  default     = null
}

variable "publish_at" {
  description = "When to publish the first clip, an RFC 3339 time in the future."
  type        = string
  default     = null
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

resource "clipper_collection" "quickstart" {
  name = "Quickstart clips"
}

# The first clip, in the collection, made in the apply that makes the project.
# (A for_each over every clip needs the project to exist at plan time: run
# `terraform apply -target=clipper_clip_project.quickstart` first.)
resource "clipper_collection_content" "first" {
  collection_id = clipper_collection.quickstart.id
  content_id    = clipper_clip_project.quickstart.clips[0].id
}

resource "clipper_publish_schedule" "first" {
  count = var.post_account_id == null ? 0 : 1

  content_id      = clipper_collection_content.first.content_id
  post_account_id = var.post_account_id
  publish_at      = var.publish_at
  title           = clipper_clip_project.quickstart.clips[0].title
  description     = "Made with Clipper."
  privacy         = "unlisted"
}

output "clips" {
  description = "Download address and length of each clip."
  value = [
    for c in clipper_clip_project.quickstart.clips : {
      uri_for_export = c.uri_for_export
      duration_sec   = c.duration_ms / 1000
    }
  ]
}

output "collection_id" {
  description = "The collection holding the first clip."
  value       = clipper_collection.quickstart.id
}

output "schedule_id" {
  description = "The publish schedule of the first clip, when an account was given."
  value       = one(clipper_publish_schedule.first[*].id)
}
