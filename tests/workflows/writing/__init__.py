"""Workflow tests of the writing family."""
