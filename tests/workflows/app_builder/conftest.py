"""Fixtures for the app builder's workflow tests: an offline harness per test."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from tests.llm.loopback import Loopback
from tests.workflows.app_builder.harness import AppHarness, app_harness


@pytest.fixture
async def apps(env: WorkflowEnvironment, tmp_path: Path) -> AsyncIterator[AppHarness]:
    async with app_harness(env, tmp_path) as harness:
        yield harness


@pytest.fixture
async def scripted(env: WorkflowEnvironment, tmp_path: Path, loopback: Loopback) -> AsyncIterator[AppHarness]:
    """A harness whose LLM is the loopback server; each test sets `loopback.responder` to its `ScriptedModel`."""
    async with app_harness(env, tmp_path, llm_base_url=loopback.base_url) as harness:
        yield harness
