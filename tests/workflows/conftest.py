"""Fixtures for workflow tests: one embedded style store for the session, a harness per test."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_library import load_style_library
from stores.style_store import LanceStyleStore
from tests.workflows.harness import Harness, agent_harness


@pytest.fixture(scope="session")
def style_store(tmp_path_factory: pytest.TempPathFactory) -> LanceStyleStore:
    return LanceStyleStore.open(tmp_path_factory.mktemp("lancedb"), library=load_style_library())


@pytest.fixture
async def harness(env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore) -> AsyncIterator[Harness]:
    async with agent_harness(env, tmp_path, style_store) as h:
        yield h
