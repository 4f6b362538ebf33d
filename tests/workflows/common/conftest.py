"""A worker for the tiny test family on fresh task queues, per test."""

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from api.streaming import run_events
from models.events import RunEvent
from models.settings import Settings
from tests.workflows.common.tiny import TINY_ACTIVITIES, TINY_WORKFLOWS
from tests.workflows.image.harness import settings_for, terminate_running
from worker import running_workers
from workflows.common.registration import Registry


@dataclass
class Tiny:
    """Starts tiny workflows on the test's own queue and reads their events."""

    env: WorkflowEnvironment
    settings: Settings
    started: set[str] = field(default_factory=set)

    async def start(self, workflow: str, run_input: BaseModel) -> WorkflowHandle[Any, Any]:
        run_id = f"test-{uuid.uuid4().hex[:10]}"
        self.started.add(run_id)
        return await self.env.client.start_workflow(
            workflow, run_input, id=run_id, task_queue=self.settings.task_queue("test")
        )

    async def events(self, run_id: str, from_offset: int = 0) -> list[RunEvent]:
        return [event async for event in run_events(self.env.client, run_id, from_offset)]


@asynccontextmanager
async def tiny_family(env: WorkflowEnvironment, data_dir: Path) -> AsyncIterator[Tiny]:
    settings = settings_for(data_dir)
    async with running_workers(env.client, settings, TINY_ACTIVITIES, Registry(TINY_WORKFLOWS)):
        harness = Tiny(env=env, settings=settings)
        try:
            yield harness
        finally:
            await terminate_running(env.client, harness.started)


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
