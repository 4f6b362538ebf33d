"""The supervisor family's models (seed 001)."""
