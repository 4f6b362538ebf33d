"""A worker for the tiny test family on fresh task queues, per test."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from temporalio.client import Client, WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from models.settings import Settings
from stores.blob_store import BlobStore
from tests.workflows.common.tiny import TINY_ACTIVITIES, TINY_WORKFLOWS
from tests.workflows.harness import FamilyHarness, running_family
from workflows.common.registration import Registry


@dataclass
class Tiny(FamilyHarness):
    """Starts tiny workflows (by registered name) on the test's own queue and reads their events."""

    family = "test"

    async def start(self, workflow: str, run_input: BaseModel) -> WorkflowHandle[Any, Any]:
        return await self.start_run(workflow, run_input, id_prefix="test")


@asynccontextmanager
async def tiny_family(
    env: WorkflowEnvironment, data_dir: Path, *, worker_client: Client | None = None
) -> AsyncIterator[Tiny]:
    """The tiny family's worker (on `worker_client`'s connection, when given) and a harness that starts its runs."""

    def harness(settings: Settings, blobs: BlobStore) -> Tiny:
        return Tiny(env, settings)

    registry = Registry(TINY_WORKFLOWS)
    async with running_family(
        env, data_dir, harness, activities=TINY_ACTIVITIES, registry=registry, worker_client=worker_client
    ) as running:
        yield running


@pytest.fixture
async def tiny(env: WorkflowEnvironment, tmp_path: Path) -> AsyncIterator[Tiny]:
    """The tiny family on the time-skipping server."""
    async with tiny_family(env, tmp_path) as harness:
        yield harness


@pytest.fixture
async def dev_tiny(dev_env: WorkflowEnvironment, tmp_path: Path) -> AsyncIterator[Tiny]:
    """The tiny family on the dev server (real update validation)."""
    async with tiny_family(dev_env, tmp_path) as harness:
        yield harness
