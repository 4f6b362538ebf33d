"""workflows tests."""
