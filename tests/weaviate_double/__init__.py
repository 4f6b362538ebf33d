"""A loopback stand-in for a Weaviate server, driven only through the official weaviate-client v4: the REST endpoints
and the gRPC service the client calls, with bring-your-own vectors, filters, near-vector, BM25 and hybrid search.
`start_weaviate_double()` runs one in threads of this process; `python -m tests.weaviate_double` runs one as its own
process and prints its ports."""

from tests.weaviate_double.server import WeaviateDouble, start_weaviate_double

__all__ = ["WeaviateDouble", "start_weaviate_double"]
