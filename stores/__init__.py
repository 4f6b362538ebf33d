"""Storage the worker's activities use: the RAG style store (LanceDB), its embedder, and the blob store."""
