"""Unit tests of the writing family."""
