"""The shared run machinery under test: graph runs, ask-and-wait, event logs across continue-as-new."""
