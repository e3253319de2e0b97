data "clipper_collection_export" "highlights" {
  collection_id = clipper_collection.highlights.id
}

output "highlight_downloads" {
  value = { for c in data.clipper_collection_export.highlights.contents : c.content_id => c.uri_for_export }
}
