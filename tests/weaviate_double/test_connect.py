"""Connecting to the double through the official client, sync and async, in-process and as its own process; the
client's full init checks run (the gRPC health check included)."""

import json
import subprocess
import sys

import pytest
import weaviate

from tests.weaviate_double import WeaviateDouble
from tests.weaviate_double.fixtures import connect
from tests.weaviate_double.rest import PYPI_PATH


def test_sync_client_connects(weaviate_client: weaviate.WeaviateClient) -> None:
    assert weaviate_client.is_ready()
    assert weaviate_client.is_live()
    assert weaviate_client.get_meta()["version"] == "1.35.2"


async def test_async_client_connects(weaviate_double: WeaviateDouble) -> None:
    async with weaviate.use_async_with_custom(
        http_host=weaviate_double.host,
        http_port=weaviate_double.http_port,
        http_secure=False,
        grpc_host=weaviate_double.host,
        grpc_port=weaviate_double.grpc_port,
        grpc_secure=False,
    ) as client:
        assert await client.is_ready()


def test_runs_as_its_own_process(monkeypatch: pytest.MonkeyPatch) -> None:
    with subprocess.Popen([sys.executable, "-m", "tests.weaviate_double"], stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            ports = json.loads(proc.stdout.readline())
            monkeypatch.setattr("weaviate.connect.v4.PYPI_PACKAGE_URL", ports["url"] + PYPI_PATH)
            client = connect(ports["http_port"], ports["grpc_port"])
            try:
                assert client.is_ready()
            finally:
                client.close()
        finally:
            proc.terminate()
        assert proc.wait(timeout=10) == 0
