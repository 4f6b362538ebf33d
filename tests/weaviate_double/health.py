"""The gRPC health check weaviate-client calls on connect (`/grpc.health.v1.Health/Check`, with Weaviate's own
message types): always SERVING while the double runs."""

from typing import Any

import grpc
from weaviate.proto.v1 import health_weaviate_pb2


def _check(request: Any, context: grpc.ServicerContext) -> Any:
    return health_weaviate_pb2.WeaviateHealthCheckResponse(
        status=health_weaviate_pb2.WeaviateHealthCheckResponse.SERVING
    )


def health_handler() -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(
        "grpc.health.v1.Health",
        {
            "Check": grpc.unary_unary_rpc_method_handler(
                _check,
                request_deserializer=health_weaviate_pb2.WeaviateHealthCheckRequest.FromString,
                response_serializer=health_weaviate_pb2.WeaviateHealthCheckResponse.SerializeToString,
            )
        },
    )
