"""End-to-end tests of the writing family."""
