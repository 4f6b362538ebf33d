"""Process wiring shared by `worker.py` and the gateway: the Temporal client connection and OpenTelemetry.

It is neither a workflow, an activity, an API route nor a shared model, so it has a folder of its own.
"""
