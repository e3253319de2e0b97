resource "clipper_collection" "highlights" {
  name = "Conference highlights"
}

# The talk's first clip, in the collection. This works in the apply that
# creates the project: the id is known after the project completes.
resource "clipper_collection_content" "first" {
  collection_id = clipper_collection.highlights.id
  content_id    = clipper_clip_project.talk.clips[0].id
}

# Every clip of the talk. for_each needs the clip ids at plan time, so the
# project must exist already: for a project created in the same apply, run
# `terraform apply -target=clipper_clip_project.talk` first. The ids stay
# known across in-place changes of the project (visibility), so this plans
# no replacement then.
resource "clipper_collection_content" "talk" {
  for_each = toset([for c in clipper_clip_project.talk.clips : c.id])

  collection_id = clipper_collection.highlights.id
  content_id    = each.value
}
