"""Gateway tests of the supervisor family."""
