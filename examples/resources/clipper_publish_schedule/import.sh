# A publish schedule is imported by its id (scheduleId). The service cannot
# read a schedule back, so the import records the id alone; the next apply
# records the configuration's arguments without changing the schedule.
terraform import clipper_publish_schedule.launch sch_01J9Z3Q4X8M2K7TB5VR6N0HWDE
