"""Fixtures for the supervisor family's workflow tests: an offline harness per test."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from tests.llm.loopback import Loopback
from tests.workflows.content.harness import ContentHarness, content_harness


@pytest.fixture
async def content(env: WorkflowEnvironment, tmp_path: Path) -> AsyncIterator[ContentHarness]:
    async with content_harness(env, tmp_path) as harness:
        yield harness


@pytest.fixture
async def scripted(env: WorkflowEnvironment, tmp_path: Path, loopback: Loopback) -> AsyncIterator[ContentHarness]:
    """A harness whose LLM is the loopback server: each test queues the answers its route depends on."""
    async with content_harness(env, tmp_path, llm_base_url=loopback.base_url) as harness:
        yield harness


@pytest.fixture
async def hosted(env: WorkflowEnvironment, tmp_path: Path, loopback: Loopback) -> AsyncIterator[ContentHarness]:
    """An offline harness whose worker has DashScope's image API at the loopback server (each test sets its
    double as the loopback's responder)."""
    async with content_harness(env, tmp_path, image_api_url=loopback.base_url) as harness:
        yield harness


@pytest.fixture
async def hosted_on_a_dev_server(
    dev_env: WorkflowEnvironment, tmp_path: Path, loopback: Loopback
) -> AsyncIterator[ContentHarness]:
    """`hosted` on the real Temporal dev server, for a deadline that cancels activities as they start: in two
    full test runs the time-skipping test server failed that run's workflow task for good, once refusing its
    completion ("invalid history builder state for action"), once with a history the SDK could not apply (an
    activity started after the run asked to cancel it). The dev server has not shown either."""
    async with content_harness(dev_env, tmp_path, image_api_url=loopback.base_url) as harness:
        yield harness


@pytest.fixture
async def openai_images(env: WorkflowEnvironment, tmp_path: Path, loopback: Loopback) -> AsyncIterator[ContentHarness]:
    """An offline harness whose worker has OpenAI Images at the loopback server as its default image model."""
    async with content_harness(env, tmp_path, openai_images_url=f"{loopback.base_url}/v1") as harness:
        yield harness
