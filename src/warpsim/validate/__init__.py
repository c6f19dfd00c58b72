"""Validation against hardware: microbenchmarks, correlation, tuning."""
