data "clipper_exportable_clips" "talk" {
  project_id = clipper_clip_project.talk.id
}

output "clip_downloads" {
  value = [for c in data.clipper_exportable_clips.talk.clips : c.uri_for_export]
}
