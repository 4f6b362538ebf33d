"""The writing family's (InkFlow, seed 002) activities and the pure functions they use."""
