"""Unit tests of the app builder family (seed 003)."""
