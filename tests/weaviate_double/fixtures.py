"""Pytest fixtures over the double: `weaviate_double` (one per session) and `weaviate_client` (a sync client of
weaviate-client v4 connected to it, closed after the test). Import them into a conftest to use them elsewhere.

On connect the client asks PyPI whether it is outdated (best effort: it ignores OSError, but the tests' network guard
raises RuntimeError). While `weaviate_double` runs, that probe asks the double instead (`PYPI_PACKAGE_URL`, which the
client module reads at call time, points at the double's REST server), so a client connects with its full init
checks, the gRPC health check included, and nothing leaves the machine."""

from collections.abc import Iterator

import pytest
import weaviate

from tests.weaviate_double.rest import PYPI_PATH
from tests.weaviate_double.server import HOST, WeaviateDouble, start_weaviate_double


def connect(http_port: int, grpc_port: int) -> weaviate.WeaviateClient:
    """A sync client connected to the double on these ports."""
    return weaviate.connect_to_custom(
        http_host=HOST, http_port=http_port, http_secure=False, grpc_host=HOST, grpc_port=grpc_port, grpc_secure=False
    )


@pytest.fixture(scope="session")
def weaviate_double() -> Iterator[WeaviateDouble]:
    double = start_weaviate_double()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("weaviate.connect.v4.PYPI_PACKAGE_URL", double.url + PYPI_PATH)
        yield double
    double.stop()


@pytest.fixture
def weaviate_client(weaviate_double: WeaviateDouble) -> Iterator[weaviate.WeaviateClient]:
    client = connect(weaviate_double.http_port, weaviate_double.grpc_port)
    yield client
    client.close()
