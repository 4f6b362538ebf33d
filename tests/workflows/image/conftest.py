"""Fixtures for the image agent's workflow tests: a harness (fresh task queues and workers) per test."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.workflows.image.harness import Harness, agent_harness


@pytest.fixture
async def harness(env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore) -> AsyncIterator[Harness]:
    async with agent_harness(env, tmp_path, style_store) as h:
        yield h
