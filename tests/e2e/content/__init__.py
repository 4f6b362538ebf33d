"""End-to-end tests of the supervisor family over real HTTP."""
