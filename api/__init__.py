"""FastAPI gateway: starts workflows, streams their events as SSE, serves run state, graphs and blobs."""
