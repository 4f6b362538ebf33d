"""The error a misconfigured or unreachable vector store raises at start (`VECTOR_STORE=weaviate`), importable
without `weaviate`: the worker stops with its message, which names the settings to fix."""


class VectorStoreConfigError(ValueError):
    """The configured vector store cannot be used; the message names the setting to fix."""
