"""Unit tests: no Temporal server, no network."""
