"""The gateway in-process (ASGI) against the time-skipping server, with a real worker behind it."""

import asyncio
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from temporalio.testing import WorkflowEnvironment

from api.server import create_app
from models.settings import Settings
from stores.blob_backends import open_blob_store
from stores.blob_store import BlobStore
from stores.style_library import load_style_library
from stores.style_store import LanceStyleStore
from tests.simulator.fixtures import simulator_settings
from tests.simulator.profiles import REALISTIC
from tests.simulator.requests import Protocol
from tests.simulator.server import Simulator
from tests.workflows.harness import serving, settings_for, terminate_running
from workflows.common.registration import Registry
from workflows.registry import REGISTRY


@dataclass
class Gateway:
    """The gateway under test: an HTTP client into it, the app itself (to serve it on a real socket), its settings
    and blob store, the sessions it started."""

    http: httpx.AsyncClient
    app: FastAPI
    settings: Settings
    blobs: BlobStore
    env: WorkflowEnvironment
    sessions: set[str] = field(default_factory=set)


@pytest.fixture(scope="session")
def api_style_store(tmp_path_factory: pytest.TempPathFactory) -> LanceStyleStore:
    return LanceStyleStore.open(tmp_path_factory.mktemp("lancedb"), library=load_style_library())


@asynccontextmanager
async def running_gateway(
    env: WorkflowEnvironment,
    data_dir: Path,
    style_store: LanceStyleStore,
    *,
    registry: Registry = REGISTRY,
    **settings_fields: Any,
) -> AsyncIterator[Gateway]:
    """A gateway and every family's worker on fresh task queues, sharing the blob store the settings name; sessions
    it started are ended afterwards."""
    settings = settings_for(data_dir, **settings_fields)
    blobs = await asyncio.to_thread(open_blob_store, settings)
    app = create_app(settings, client=env.client, registry=registry, blob_store=blobs)
    async with (
        serving(env.client, settings, registry=registry, style_store=style_store, blobs=blobs),
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as http,
    ):
        gateway = Gateway(http=http, app=app, settings=settings, blobs=blobs, env=env)
        try:
            yield gateway
        finally:
            await terminate_running(env.client, gateway.sessions)


@pytest.fixture
async def gateway(env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore) -> AsyncIterator[Gateway]:
    async with running_gateway(env, tmp_path, api_style_store) as running:
        yield running


ALICE = {"authorization": "Bearer alice-key"}
BOB = {"authorization": "Bearer bob-key"}
KEYS = f"alice=alice-key,bob=sha256:{hashlib.sha256(b'bob-key').hexdigest()}"
"""Two principals: alice's key given as it is, bob's as its SHA-256 (both forms `API_KEYS` takes)."""


@pytest.fixture
async def keyed(env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore) -> AsyncIterator[Gateway]:
    """The gateway with the two principals `ALICE` and `BOB`."""
    async with running_gateway(env, tmp_path, api_style_store, api_keys=KEYS) as running:
        yield running


@pytest.fixture
async def simulated(
    request: pytest.FixtureRequest,
    env: WorkflowEnvironment,
    tmp_path: Path,
    api_style_store: LanceStyleStore,
    simulator: Simulator,
) -> AsyncIterator[Gateway]:
    """The gateway and workers with the simulator as the configured model: at the realistic profile shrunk by the
    test module's `TIME_SCALE`, over the protocol the test gives as the fixture's parameter (OpenAI Chat else)."""
    protocol: Protocol = getattr(request, "param", "openai_chat")
    simulator.profile, simulator.time_scale = REALISTIC, request.module.TIME_SCALE
    async with running_gateway(env, tmp_path, api_style_store, **simulator_settings(simulator, protocol)) as gateway:
        yield gateway
