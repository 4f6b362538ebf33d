"""Weaviate's REST endpoints that weaviate-client v4 calls: readiness, meta (the version keeps the client on the
unary gRPC batch path), collections (/v1/schema) and single objects (/v1/objects). Anything else is refused with
Weaviate's error body and 501, so a client feature the double lacks fails loudly instead of answering wrong."""

import json
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from typing import Any

from tests.weaviate_double.errors import WeaviateError, not_implemented
from tests.weaviate_double.storage import Store, StoredObject, Vectors, canonical_uuid

# Below 1.36 the client batches with unary BatchObjects calls, not the BatchStream the double does not implement.
SERVER_VERSION = "1.35.2"
GRPC_MAX_MESSAGE_SIZE = 104858000
_OBJECT_PATH = re.compile(r"^/v1/objects/([^/]+)/([^/]+)$")
_SCHEMA_PATH = re.compile(r"^/v1/schema/([^/]+)$")
# The client asks PyPI for its newest version on connect; tests point that probe here (fixtures.no_pypi_probe).
PYPI_PATH = "/pypi/weaviate-client/json"


def object_json(collection: str, obj: StoredObject) -> dict[str, Any]:
    body: dict[str, Any] = {
        "class": collection,
        "id": obj.uuid,
        "properties": obj.properties,
        "creationTimeUnix": obj.created_ms,
        "lastUpdateTimeUnix": obj.updated_ms,
    }
    if "" in obj.vectors:
        body["vector"] = obj.vectors[""]
    else:
        body["vectors"] = obj.vectors
    return body


def _vectors(body: dict[str, Any]) -> Vectors:
    vectors: Vectors = dict(body.get("vectors") or {})
    if body.get("vector") is not None:
        vectors[""] = body["vector"]
    return vectors


class Handler(BaseHTTPRequestHandler):
    """One request: routed by method and path to the store of the server it belongs to."""

    protocol_version = "HTTP/1.1"
    server: "RestServer"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a test double logs nothing per request."""

    def _send(self, status: int, body: Any = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            raise WeaviateError(f"invalid JSON body: {exc}", http_status=400) from None
        if not isinstance(body, dict):
            raise WeaviateError("request body must be a JSON object", http_status=400)
        return body

    def _handle(self) -> None:
        try:
            status, body = self._route(self.command, self.path.split("?", 1)[0])
        except WeaviateError as exc:
            status, body = exc.http_status, exc.body()
        self._send(status, body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle

    def _route(self, method: str, path: str) -> tuple[int, Any]:
        store = self.server.store
        if path in ("/v1/.well-known/ready", "/v1/.well-known/live") and method == "GET":
            return 200, None
        if path == PYPI_PATH and method == "GET":
            return 200, {"info": {"version": version("weaviate-client")}}
        if path == "/v1/.well-known/openid-configuration":
            return 404, None
        if path == "/v1/meta" and method == "GET":
            return 200, {
                "hostname": "http://[::]:8080",
                "modules": {},
                "version": SERVER_VERSION,
                "grpcMaxMessageSize": GRPC_MAX_MESSAGE_SIZE,
            }
        if path == "/v1/schema":
            if method == "GET":
                return 200, {"classes": store.definitions()}
            if method == "POST":
                return 200, store.create_collection(self._body())
        if match := _SCHEMA_PATH.match(path):
            name = match.group(1)
            if method == "GET":
                found = store.definition(name)
                return (200, found) if found else (404, None)
            if method == "DELETE":
                store.delete_collection(name)
                return 200, None
        if path == "/v1/objects" and method == "POST":
            return 200, self._insert(store, self._body())
        if match := _OBJECT_PATH.match(path):
            return self._object(store, method, match.group(1), match.group(2))
        raise not_implemented(f"{method} {path}")

    def _insert(self, store: Store, body: dict[str, Any]) -> dict[str, Any]:
        collection = str(body.get("class") or "")
        uuid = body.get("id") or ""
        stored = store.put(collection, uuid, body.get("properties") or {}, _vectors(body), replace=False)
        return object_json(store.require(collection)["class"], stored)

    def _object(self, store: Store, method: str, collection: str, uuid: str) -> tuple[int, Any]:
        found = store.get(collection, uuid)
        if method in ("HEAD", "GET"):
            if found is None:
                return 404, None
            return (204, None) if method == "HEAD" else (200, object_json(collection, found))
        if method == "DELETE":
            return (204, None) if store.delete(collection, [uuid]) else (404, None)
        if method in ("PUT", "PATCH"):
            if found is None:
                return 404, None
            body = self._body()
            if canonical_uuid(body.get("id") or uuid) != found.uuid:
                raise WeaviateError("invalid update: field 'id' is immutable")
            properties, vectors = body.get("properties") or {}, _vectors(body)
            if method == "PATCH":
                properties = {**found.properties, **properties}
                vectors = {**found.vectors, **vectors}
            stored = store.put(collection, uuid, properties, vectors, replace=True)
            return (200, object_json(collection, stored)) if method == "PUT" else (204, None)
        raise not_implemented(f"{method} /v1/objects/{{collection}}/{{id}}")


class RestServer(ThreadingHTTPServer):
    """The HTTP side of one double, serving its store."""

    daemon_threads = True

    def __init__(self, store: Store, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__((host, port), Handler)
        self.store = store
