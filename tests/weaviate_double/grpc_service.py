"""Weaviate's gRPC service (`weaviate.v1.Weaviate`) over the double's store: BatchObjects, BatchDelete, Search and
Aggregate. Every other method (BatchStream, BatchReferences, TenantsGet) answers UNIMPLEMENTED; a request that uses a
feature the double lacks is refused with UNIMPLEMENTED and says which feature."""

from typing import Any

import grpc
from weaviate.proto.v1 import weaviate_pb2_grpc

from tests.weaviate_double.errors import WeaviateError
from tests.weaviate_double.storage import Store


class Servicer(weaviate_pb2_grpc.WeaviateServicer):
    """The service, one instance per double, over its store."""

    def __init__(self, store: Store) -> None:
        self._store = store


def abort(context: grpc.ServicerContext, error: WeaviateError) -> Any:
    context.abort(error.grpc_code, error.message)
