# Clip projects are imported by project id. source_file, source_hash and
# timeouts cannot be read back from the service: keep them in the configuration,
# or use the upload id that import records in video_url for an uploaded project.
terraform import clipper_clip_project.talk 3f2a9c0d41b7e5a6c8d9
