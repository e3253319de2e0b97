data "clipper_social_accounts" "linkedin" {
  platform = "LINKEDIN"
}

locals {
  company_page = data.clipper_social_accounts.linkedin.accounts[0]
}

# Publishes the talk's first clip on the company's LinkedIn page when
# applied. Changing an argument publishes again (the plan warns); destroying
# it leaves the post published. The clip's id comes from the project, where
# it stays known when the project changes in place: from a
# clipper_exportable_clips data source it would turn unknown then, and
# publish again.
resource "clipper_post_task" "announce" {
  content_id      = clipper_clip_project.talk.clips[0].id
  post_account_id = local.company_page.post_account_id
  sub_account_id  = local.company_page.sub_account_id

  title       = "Our talk at DevConf, in 60 seconds"
  description = "Faster builds, fewer flaky tests. #engineering #devconf"
}
