"""Fixtures shared by the LLM client tests (the `loopback` server itself comes from tests/conftest.py)."""

from collections.abc import AsyncIterator

import httpx
import pytest

from llm import LLMClient
from models.settings import Settings
from runtime.http_client import buffered_reads
from runtime.llm_client import build_llm_client
from tests.llm.answers import llm_settings
from tests.llm.loopback import Loopback


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client for one test, reading as the worker's does (`runtime.http_client`), closed when it ends."""
    async with httpx.AsyncClient() as client:
        buffered_reads(client)
        yield client


@pytest.fixture
async def llm(loopback: Loopback) -> AsyncIterator[LLMClient]:
    """A worker's LLM client (as `runtime.llm_client` builds it) whose provider is the loopback server."""
    settings = Settings(_env_file=None, **llm_settings(loopback.base_url))
    async with httpx.AsyncClient() as http:
        buffered_reads(http)
        client = build_llm_client(settings, http)
        assert client is not None
        yield client
