# All of the account's collections.
data "clipper_collections" "all" {}

output "collection_names" {
  value = { for c in data.clipper_collections.all.collections : c.id => c.name }
}

# Only the collections that hold the talk's first clip.
data "clipper_collections" "holding_first_clip" {
  content_id = clipper_clip_project.talk.clips[0].id
}
