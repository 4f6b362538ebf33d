"""Workflow tests of the supervisor family."""
