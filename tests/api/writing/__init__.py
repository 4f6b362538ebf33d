"""Gateway tests of the writing family."""
