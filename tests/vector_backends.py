"""The vector stores' backends for the contract tests (tests/unit/test_style_store.py,
tests/unit/writing/test_writing_index.py) and for any test that runs the system on Weaviate:

- `VECTOR_BACKENDS`: "lancedb" (embedded, always), "weaviate-double" (the loopback double of
  tests/weaviate_double, always) and "weaviate-server" (a real server at `WEAVIATE_URL`, on loopback since the
  network guard allows nothing else; `WEAVIATE_GRPC_PORT`, `WEAVIATE_API_KEY`; skipped when `WEAVIATE_URL` is unset).
- fixtures `weaviate_double` (tests/weaviate_double) and `weaviate_server` (session-scoped; import them into the
  test module), and `weaviate_endpoint(request, backend)`: where that Weaviate is (`WeaviateEndpoint`: its URL,
  gRPC port and key, a connected client, the settings' environment for it).
- `collection_prefix()` and `drop_collections(endpoint, prefix)`: each test's collections apart on one server,
  and gone after it.
"""

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import weaviate

from stores.weaviate_client import connect
from tests.weaviate_double.fixtures import weaviate_double

__all__ = [
    "VECTOR_BACKENDS",
    "WeaviateEndpoint",
    "collection_prefix",
    "drop_collections",
    "weaviate_double",
    "weaviate_endpoint",
    "weaviate_server",
]

VECTOR_BACKENDS = ["lancedb", "weaviate-double", "weaviate-server"]
_NO_PYPI = "http://127.0.0.1:9/pypi"
"""Where the client's PyPI version probe goes with a real server: refused at once (the probe ignores it)."""


@dataclass(frozen=True)
class WeaviateEndpoint:
    """A Weaviate server the tests use: the double or a real one."""

    url: str
    grpc_port: int
    api_key: str | None = None

    def client(self) -> weaviate.WeaviateClient:
        """A connected sync client (the caller closes it)."""
        return connect(self.url, self.grpc_port, self.api_key)

    def environment(self) -> dict[str, str]:
        """The settings' environment variables that point the gateway and the worker here."""
        env = {"VECTOR_STORE": "weaviate", "WEAVIATE_URL": self.url, "WEAVIATE_GRPC_PORT": str(self.grpc_port)}
        if self.api_key:
            env["WEAVIATE_API_KEY"] = self.api_key
        return env


@pytest.fixture(scope="session")
def weaviate_server() -> Iterator[WeaviateEndpoint]:
    """The real server `WEAVIATE_URL` names (the test is skipped when it is unset)."""
    url = os.environ.get("WEAVIATE_URL")
    if not url:
        pytest.skip("WEAVIATE_URL is not set: no real Weaviate server to test against")
    grpc_port = int(os.environ.get("WEAVIATE_GRPC_PORT", "50051"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("weaviate.connect.v4.PYPI_PACKAGE_URL", _NO_PYPI)
        yield WeaviateEndpoint(url, grpc_port, os.environ.get("WEAVIATE_API_KEY"))


def weaviate_endpoint(request: pytest.FixtureRequest, backend: str) -> WeaviateEndpoint:
    """The server of a Weaviate `backend`: the session's double, or the real one (`weaviate_server`)."""
    if backend == "weaviate-server":
        server: WeaviateEndpoint = request.getfixturevalue("weaviate_server")
        return server
    double = request.getfixturevalue("weaviate_double")
    return WeaviateEndpoint(double.url, double.grpc_port)


def collection_prefix() -> str:
    """A fresh prefix for one test's collections (a Weaviate collection name starts with a capital letter)."""
    return f"T{uuid.uuid4().hex[:12]}"


def drop_collections(endpoint: WeaviateEndpoint, prefix: str) -> None:
    """Deletes the collections whose names start with `prefix`."""
    with endpoint.client() as client:
        for name in client.collections.list_all(simple=True):
            if name.startswith(prefix):
                client.collections.delete(name)
