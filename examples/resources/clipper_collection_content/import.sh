# A collection content is imported by {collection_id}/{content_id}, where the
# content id is the clip's composite id {projectId}.{curationId}.
terraform import 'clipper_collection_content.talk["3f2a9c0d41b7e5a6c8d9.c01"]' col_01J9Z3Q4X8M2K7TB5VR6N0HWDE/3f2a9c0d41b7e5a6c8d9.c01
