"""Keyword and hybrid search (filled in by the BM25 step): until then both are refused."""

from typing import Any

from weaviate.proto.v1 import base_search_pb2

from tests.weaviate_double.errors import not_implemented
from tests.weaviate_double.storage import StoredObject
from tests.weaviate_double.vectors import Hit


def bm25(definition: dict[str, Any], objects: list[StoredObject], query: base_search_pb2.BM25) -> list[Hit]:
    raise not_implemented("bm25")


def hybrid(definition: dict[str, Any], objects: list[StoredObject], query: base_search_pb2.Hybrid) -> list[Hit]:
    raise not_implemented("hybrid")
