resource "clipper_collection" "highlights" {
  name = "Conference highlights"
}

data "clipper_exportable_clips" "talk" {
  project_id = clipper_clip_project.talk.id
}

# Every clip of the talk, in the collection. for_each needs the clip ids at
# plan time, so the project must exist already: a project created in the same
# apply takes a second apply (or index one clip, clips[0].id, instead).
resource "clipper_collection_content" "talk" {
  for_each = toset([for c in data.clipper_exportable_clips.talk.clips : c.id])

  collection_id = clipper_collection.highlights.id
  content_id    = each.value
}
