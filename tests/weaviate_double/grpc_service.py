"""Weaviate's gRPC service (`weaviate.v1.Weaviate`) over the double's store: BatchObjects, BatchDelete, Search and
Aggregate (object count, with filters). Every other method (BatchStream, BatchReferences, TenantsGet) answers
UNIMPLEMENTED; a request using a feature the double lacks is refused with UNIMPLEMENTED and names the feature."""

import time
from collections.abc import Callable
from typing import Any, TypeVar

import grpc
from weaviate.proto.v1 import aggregate_pb2, batch_delete_pb2, batch_pb2, weaviate_pb2_grpc

from tests.weaviate_double.errors import WeaviateError, not_implemented
from tests.weaviate_double.filters import predicate
from tests.weaviate_double.search import MAXIMUM_RESULTS, search
from tests.weaviate_double.storage import Store
from tests.weaviate_double.wire import batch_properties, batch_vectors, id_bytes

Reply = TypeVar("Reply")


def _answer(context: grpc.ServicerContext, call: Callable[[], Reply]) -> Reply:
    try:
        return call()
    except WeaviateError as exc:
        context.abort(exc.grpc_code, exc.message)
        raise  # unreachable: abort raises


class Servicer(weaviate_pb2_grpc.WeaviateServicer):
    """The service, one instance per double, over its store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def BatchObjects(self, request: Any, context: grpc.ServicerContext) -> Any:
        return _answer(context, lambda: self._batch_objects(request))

    def BatchDelete(self, request: Any, context: grpc.ServicerContext) -> Any:
        return _answer(context, lambda: self._batch_delete(request))

    def Search(self, request: Any, context: grpc.ServicerContext) -> Any:
        return _answer(context, lambda: search(self._store, request))

    def Aggregate(self, request: Any, context: grpc.ServicerContext) -> Any:
        return _answer(context, lambda: self._aggregate(request))

    def _batch_objects(self, request: batch_pb2.BatchObjectsRequest) -> batch_pb2.BatchObjectsReply:
        started = time.monotonic()
        errors = []
        for index, obj in enumerate(request.objects):
            try:
                if obj.tenant:
                    raise not_implemented("multi-tenancy")
                self._store.put(
                    obj.collection, obj.uuid, batch_properties(obj.properties), batch_vectors(obj), replace=True
                )
            except WeaviateError as exc:
                errors.append(batch_pb2.BatchObjectsReply.BatchError(index=index, error=exc.message))
        return batch_pb2.BatchObjectsReply(took=time.monotonic() - started, errors=errors)

    def _batch_delete(self, request: batch_delete_pb2.BatchDeleteRequest) -> batch_delete_pb2.BatchDeleteReply:
        started = time.monotonic()
        if request.tenant:
            raise not_implemented("multi-tenancy")
        definition, objects = self._store.snapshot(request.collection)
        if not request.HasField("filters"):
            raise WeaviateError("no filters in batch delete request", grpc_code=grpc.StatusCode.INVALID_ARGUMENT)
        keep = predicate(definition, request.filters)
        matched = [obj.uuid for obj in objects if keep(obj)][:MAXIMUM_RESULTS]
        if not request.dry_run:
            self._store.delete(request.collection, matched)
        reply = batch_delete_pb2.BatchDeleteReply(
            took=time.monotonic() - started, matches=len(matched), successful=len(matched), failed=0
        )
        if request.verbose:
            reply.objects.extend(
                batch_delete_pb2.BatchDeleteObject(uuid=id_bytes(uuid), successful=True) for uuid in matched
            )
        return reply

    def _aggregate(self, request: aggregate_pb2.AggregateRequest) -> aggregate_pb2.AggregateReply:
        started = time.monotonic()
        if request.WhichOneof("search") or request.HasField("group_by") or request.aggregations or request.tenant:
            raise not_implemented("aggregations other than the object count over all objects (with filters)")
        definition, objects = self._store.snapshot(request.collection)
        if request.HasField("filters"):
            keep = predicate(definition, request.filters)
            objects = [obj for obj in objects if keep(obj)]
        return aggregate_pb2.AggregateReply(
            took=time.monotonic() - started,
            single_result=aggregate_pb2.AggregateReply.Single(objects_count=len(objects)),
        )
