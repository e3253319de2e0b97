# The clips of a project that this configuration does not manage (a project
# of clipper_clip_project has them in its own `clips` attribute; use that).
variable "project_id" {
  type = string
}

data "clipper_exportable_clips" "other_team" {
  project_id = var.project_id

  # Give up on a service that does not answer within two minutes.
  timeouts = {
    read = "2m"
  }
}

output "clip_downloads" {
  value = [for c in data.clipper_exportable_clips.other_team.clips : c.uri_for_export]
}

# Each clip reports the render preferences it was rendered with, under the
# names of the project's `render` argument.
output "clip_layouts" {
  value = { for c in data.clipper_exportable_clips.other_team.clips : c.id => try(c.render_pref.layout_aspect_ratio, null) }
}

# The clips of a collection, whoever made them.
data "clipper_exportable_clips" "highlights" {
  collection_id = clipper_collection.highlights.id
}
