"""Runnable tools of the project: the local load test (`make load`) and the corpus sweep (`make fuzz-files`)."""
