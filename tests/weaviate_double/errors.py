"""The double's one error type: what a request did wrong, with the HTTP status and the gRPC status code a Weaviate
server answers it with. REST renders it as Weaviate's `{"error": [{"message": ...}]}` body, gRPC as an aborted call
with the message as its details."""

import grpc


class WeaviateError(Exception):
    """A refused request: `message` as Weaviate words it, `http_status` for REST, `grpc_code` for gRPC."""

    def __init__(
        self, message: str, *, http_status: int = 422, grpc_code: grpc.StatusCode = grpc.StatusCode.UNKNOWN
    ) -> None:
        super().__init__(message)
        self.message = message
        self.http_status = http_status
        self.grpc_code = grpc_code

    def body(self) -> dict[str, list[dict[str, str]]]:
        """Weaviate's REST error shape."""
        return {"error": [{"message": self.message}]}


def not_implemented(what: str) -> WeaviateError:
    """A feature the double does not implement: refused, never answered wrong."""
    return WeaviateError(
        f"weaviate test double: {what} is not implemented", http_status=501, grpc_code=grpc.StatusCode.UNIMPLEMENTED
    )
