"""e2e tests."""
