"""Workflow tests of the app builder family (seed 003) on the time-skipping server."""
