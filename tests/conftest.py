"""Shared fixtures: one time-skipping Temporal environment per session, a guard against network access (which lets
only the configured provider through, in live mode: `--live`, tests/live/mode.py), a loopback server standing in
for LLM providers, the model simulator (tests/simulator), an S3 API server (tests/s3_server.py) and a throwaway
PostgreSQL (tests/postgres_server.py)."""

import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from models.search_attributes import ALL_KEYS, dev_server_flags
from tests.live.mode import LIVE_OPTION, LiveProvider, live_provider, live_requested
from tests.llm.loopback import Loopback
from tests.network_guard import NetworkGuard
from tests.postgres_server import postgres_database, postgres_server
from tests.s3_server import create_bucket, s3_settings, start_s3_server
from tests.simulator.fixtures import simulator, simulator_server

__all__ = ["postgres_database", "postgres_server", "simulator", "simulator_server"]  # fixtures of other modules

BIN_DIR = Path(sys.executable).parent
TEST_SERVER = BIN_DIR / "temporal-test-server"
DEV_SERVER = BIN_DIR / "temporal"


CHEAP_MODULE_FIXTURES = {"env"}
"""Module-scoped fixtures cheap enough to set up again on each test worker that runs one of the module's tests (a
time-skipping server starts in about 0.1 s)."""
ONE_WORKER_SESSION_FIXTURES = {"console_stack"}
"""Session-scoped fixtures too costly to set up on every test worker (the browser tests' embedded stack, ~12 s of
CPU): the tests using one run on one worker, which sets it up once for all their modules."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `pytest -n N --dist loadgroup` (make test): each test goes to whichever worker is free, except that the
    tests sharing a costly fixture (a whole stack, a browser, a rendered picture) run on one worker, so that fixture is
    set up once: the tests of every module using one of `ONE_WORKER_SESSION_FIXTURES` together, else a module's tests
    when they share a module-scoped one. Runs before pytest-xdist reads the groups."""
    for item in items:
        fixtures = getattr(item, "_fixtureinfo", None)
        if fixtures is None:
            continue
        used = {name: definitions[-1] for name, definitions in fixtures.name2fixturedefs.items() if definitions}
        shared = sorted(
            name
            for name, definition in used.items()
            if name in ONE_WORKER_SESSION_FIXTURES and definition.scope == "session"
        )
        if shared:
            item.add_marker(pytest.mark.xdist_group(shared[0]))
        elif any(d.scope == "module" and name not in CHEAP_MODULE_FIXTURES for name, d in used.items()):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        LIVE_OPTION,
        action="store_true",
        help="live mode (make test-live): tests marked `live` call the LLM provider LLM_PROVIDER and its key configure",
    )


@pytest.fixture(autouse=True, scope="session")
def no_network(pytestconfig: pytest.Config) -> Iterator[None]:
    """No test reaches the network (tests/network_guard.py); in live mode, only the configured provider."""
    live = live_provider() if live_requested(pytestconfig) else None
    with NetworkGuard(live.host if isinstance(live, LiveProvider) else None).installed():
        yield


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


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """One S3 API server (moto, its own process on loopback) for the session: its endpoint URL."""
    endpoint, stop = start_s3_server()
    yield endpoint
    stop()


@pytest.fixture
def s3_blob_settings(s3_endpoint: str) -> dict[str, str]:
    """Settings fields that put this test's blobs in a bucket of its own (`BLOB_STORE=s3`)."""
    bucket = f"blobs-{uuid.uuid4().hex[:12]}"
    create_bucket(s3_endpoint, bucket)
    return s3_settings(s3_endpoint, bucket)
