"""Storage the worker's activities and the gateway use: the blob store and the image references read from it, the
app builder's workspace and the content run's evidence in it, the RAG style store (LanceDB) and its embedder, the
writers' projects and their search index."""
