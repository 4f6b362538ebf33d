"""The separate-hosts topology: gateway and workers with no shared disk."""
