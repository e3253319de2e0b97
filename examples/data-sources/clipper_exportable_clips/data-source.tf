data "clipper_exportable_clips" "talk" {
  project_id = clipper_clip_project.talk.id

  # Give up on a service that does not answer within two minutes.
  timeouts = {
    read = "2m"
  }
}

output "clip_downloads" {
  value = [for c in data.clipper_exportable_clips.talk.clips : c.uri_for_export]
}

# Each clip reports the render preferences it was rendered with, under the
# names of the project's `render` argument.
output "clip_layouts" {
  value = { for c in data.clipper_exportable_clips.talk.clips : c.id => try(c.render_pref.layout_aspect_ratio, null) }
}
