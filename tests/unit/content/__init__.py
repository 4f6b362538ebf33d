"""Unit tests of the supervisor family."""
