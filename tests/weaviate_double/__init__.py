"""A loopback stand-in for a Weaviate 1.35 server, driven only through the official weaviate-client v4: the REST
endpoints and the gRPC service (plus health check) the client calls. Where the stores can see it, it answers as
v1.35.23's source does: collections (text/int/number/boolean/uuid and their arrays, tokenization, self-provided
cosine vectors), objects (same uuid replaces in a batch; REST insert refuses a taken id), filters, fetch by uuid
order or cursor, near_vector, BM25 (BlockMax scoring) and hybrid (both fusions), with Weaviate's error messages.
What it does not implement (vectorizers, references, tenants, sort, group-by, aggregations beyond the count,
streaming batches, auto-schema, ...) is refused (HTTP 501 / gRPC UNIMPLEMENTED, "... is not implemented").

`start_weaviate_double()` runs one in threads of this process; `python -m tests.weaviate_double` runs one as its own
process and prints its ports; tests/weaviate_double/fixtures.py has the pytest fixtures."""

from tests.weaviate_double.server import WeaviateDouble, start_weaviate_double

__all__ = ["WeaviateDouble", "start_weaviate_double"]
