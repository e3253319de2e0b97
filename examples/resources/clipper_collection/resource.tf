resource "clipper_collection" "highlights" {
  name = "Conference highlights"
}
