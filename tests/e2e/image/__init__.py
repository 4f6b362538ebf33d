"""End-to-end tests of the image agent on the real stack."""
