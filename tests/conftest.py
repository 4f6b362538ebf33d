"""Shared fixtures: one time-skipping Temporal environment per session, a guard against network access, a
loopback server standing in for LLM providers, and the model simulator (tests/simulator)."""

import _socket
import ipaddress
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from typing_extensions import Buffer

from models.search_attributes import ALL_KEYS, dev_server_flags
from tests.llm.loopback import Loopback
from tests.simulator.fixtures import simulator, simulator_server

__all__ = ["simulator", "simulator_server"]  # fixtures defined in tests/simulator/fixtures.py, for every test

BIN_DIR = Path(sys.executable).parent
TEST_SERVER = BIN_DIR / "temporal-test-server"
DEV_SERVER = BIN_DIR / "temporal"


def _is_local(address: Any) -> bool:
    if isinstance(address, str):  # a unix socket path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True, scope="session")
def no_network() -> Iterator[None]:
    """Any connection to a non-loopback address fails loudly: no test reaches the network."""
    original = socket.socket.connect

    def guarded(self: _socket.socket, address: tuple[Any, ...] | str | Buffer) -> None:
        if not _is_local(address):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        original(self, address)

    socket.socket.connect = guarded  # type: ignore[method-assign]
    yield
    socket.socket.connect = original  # type: ignore[method-assign]


async def register_search_attributes(client: Client) -> None:
    await client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace=client.namespace,
            search_attributes={k.name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD for k in ALL_KEYS},
        )
    )


@pytest.fixture(scope="module")
async def env() -> AsyncIterator[WorkflowEnvironment]:
    """A time-skipping server per test module: a workflow one module leaves open (say a session waiting on its
    idle timer, whose worker is gone) can then never keep a later module's time from skipping."""
    async with await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(TEST_SERVER), data_converter=pydantic_data_converter
    ) as environment:
        await register_search_attributes(environment.client)
        yield environment


@pytest.fixture(scope="session")
async def dev_env() -> AsyncIterator[WorkflowEnvironment]:
    """A real Temporal dev server (SQLite in memory) for what the time-skipping server lacks: visibility queries
    (`GET /v1/runs`) and update validators that refuse (the test server loses a refused update)."""
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(DEV_SERVER),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=[*dev_server_flags(), "--log-level", "error"],
    ) as environment:
        yield environment


@pytest.fixture(scope="session")
def loopback_server() -> Iterator[Loopback]:
    server = Loopback()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def loopback(loopback_server: Loopback) -> Iterator[Loopback]:
    """The LLM providers' stand-in: replays queued wire fixtures; every queued one must be asked for, and nothing
    else."""
    loopback_server.reset()
    yield loopback_server
    assert loopback_server.pending == 0, "a queued fixture was never requested"
    unexpected = [f"{r.method} {r.path}" for r in loopback_server.unexpected]
    assert not unexpected, f"requests with no fixture queued: {unexpected}"
