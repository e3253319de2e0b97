# Collections are imported by collection id; the name is read back from the service.
terraform import clipper_collection.highlights col_01J9Z3Q4X8M2K7TB5VR6N0HWDE
