"""The writing family's (InkFlow, seed 002) models: intents, creation phases and the router's result."""
