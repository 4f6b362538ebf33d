"""The echo family's activities: the template family (docs/adding-a-family.md)."""
