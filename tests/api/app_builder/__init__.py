"""The app builder at the gateway."""
