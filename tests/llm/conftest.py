"""Fixtures shared by the LLM client tests (the `loopback` server itself comes from tests/conftest.py)."""

from collections.abc import AsyncIterator

import httpx
import pytest


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client for one test, closed when it ends."""
    async with httpx.AsyncClient() as client:
        yield client
