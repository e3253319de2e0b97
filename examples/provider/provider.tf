# The API key is best left to the CLIPPER_API_KEY environment variable.
provider "clipper" {
  base_url = "http://127.0.0.1:8787" # or CLIPPER_BASE_URL
  org_id   = "org-dev"               # or CLIPPER_ORG_ID; only for users of several organizations

  # The service allows 30 requests per minute per API key.
  requests_per_minute = 30
}
