"""The echo family's workflow: the template family (docs/adding-a-family.md)."""
