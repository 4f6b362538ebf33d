"""End-to-end tests of the app builder over HTTP on the real stack."""
