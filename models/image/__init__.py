"""The image agent's models: its state, node requests, events, GenUI components, runs and API bodies."""
