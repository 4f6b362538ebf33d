"""The gateway in-process (ASGI) against the time-skipping server, with a real worker behind it."""

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from api.server import create_app
from models.settings import Settings
from stores.blob_store import LocalBlobStore
from stores.style_library import load_style_library
from stores.style_store import LanceStyleStore
from tests.workflows.image.harness import settings_for, terminate_running
from worker import build_activities, running_workers


@dataclass
class Gateway:
    """The gateway under test: an HTTP client into it, its settings and blob store, the sessions it started."""

    http: httpx.AsyncClient
    settings: Settings
    blobs: LocalBlobStore
    sessions: set[str] = field(default_factory=set)


@pytest.fixture(scope="session")
def api_style_store(tmp_path_factory: pytest.TempPathFactory) -> LanceStyleStore:
    return LanceStyleStore.open(tmp_path_factory.mktemp("lancedb"), library=load_style_library())


@pytest.fixture
async def gateway(env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore) -> AsyncIterator[Gateway]:
    settings = settings_for(tmp_path)
    app = create_app(settings, client=env.client)
    activities = build_activities(settings, style_store=api_style_store)
    async with (
        running_workers(env.client, settings, activities),
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as http,
    ):
        gateway = Gateway(http=http, settings=settings, blobs=LocalBlobStore(settings.blob_dir))
        try:
            yield gateway
        finally:
            await terminate_running(env.client, gateway.sessions)
