"""The echo family over HTTP."""
