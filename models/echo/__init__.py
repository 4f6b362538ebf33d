"""The echo family: the template family (docs/adding-a-family.md)."""
