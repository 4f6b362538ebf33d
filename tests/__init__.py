"""The test suite: unit, workflow (time-skipping), gateway (in-process) and end-to-end (real processes)."""
