"""Fixtures for the image agent's workflow tests: a harness (fresh task queues and workers) per test."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.llm.loopback import Loopback
from tests.workflows.image.harness import Harness, agent_harness


@pytest.fixture
async def harness(env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore) -> AsyncIterator[Harness]:
    async with agent_harness(env, tmp_path, style_store) as h:
        yield h


@pytest.fixture
async def hosted(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> AsyncIterator[Harness]:
    """A harness whose worker has DashScope's image API at the loopback server (each test sets its double)."""
    async with agent_harness(env, tmp_path, style_store, image_api_url=loopback.base_url) as h:
        yield h


@pytest.fixture
async def openai_images(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> AsyncIterator[Harness]:
    """A harness whose turns without `preferredModel` go to OpenAI Images at the loopback server."""
    async with agent_harness(env, tmp_path, style_store, openai_images_url=f"{loopback.base_url}/v1") as h:
        yield h
