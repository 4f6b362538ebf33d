"""The families end to end over HTTP on the model simulator, or on a real provider in live mode."""
