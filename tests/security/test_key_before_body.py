"""Issue 50 #1: a request's key and rate are checked before a byte of its body is read. FastAPI reads and parses a
route's typed body before it solves the route's dependencies, so bodies of megabytes from anyone at all were parsed
on the event loop before their 401. Every route that takes a body answers a caller without a key 401
`UNAUTHORIZED` and a principal over its rate 429 `RATE_LIMITED`, whatever the body, without reading it: the
body's stream here stops after its first chunk and never goes on."""

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import ALICE, KEYS, Gateway, running_gateway

JSON = {"content-type": "application/json"}
ANSWER_WITHIN_SECONDS = 10.0


class EndlessBody:
    """A body whose first chunk is sent and whose second never comes: a route that reads it waits forever."""

    def __init__(self) -> None:
        self.chunks_read = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self.chunks_read += 1
        yield b'{"text": "' + b"x" * 65536
        self.chunks_read += 1
        await asyncio.Event().wait()
        yield b'"}'


@pytest.fixture
async def keyed_and_slow(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[Gateway]:
    """Keys required, and a rate of one request a minute per principal."""
    async with running_gateway(env, tmp_path, api_style_store, api_keys=KEYS, rate_limit_per_minute=1) as gateway:
        yield gateway


async def body_routes(gateway: Gateway) -> list[tuple[str, str]]:
    paths = (await gateway.http.get("/openapi.json")).json()["paths"]
    return [
        (method.upper(), re.sub(r"\{[^}]+\}", "p1", path))
        for path, methods in paths.items()
        for method, operation in methods.items()
        if "requestBody" in operation
    ]


async def refused_unread(gateway: Gateway, method: str, url: str, headers: dict[str, str]) -> tuple[int, str]:
    body = EndlessBody()
    request = gateway.http.request(method, url, content=body, headers=JSON | headers)
    response = await asyncio.wait_for(request, ANSWER_WITHIN_SECONDS)
    assert body.chunks_read <= 1, f"{method} {url}: the body was read on"
    return response.status_code, response.json()["error"]["code"]


async def test_a_caller_without_a_key_is_refused_before_its_body_is_read(keyed_and_slow: Gateway) -> None:
    routes = await body_routes(keyed_and_slow)

    answers = {route: await refused_unread(keyed_and_slow, *route, {}) for route in routes}

    assert len(routes) >= 19
    assert all(answer == (401, "UNAUTHORIZED") for answer in answers.values()), answers


async def test_a_principal_over_its_rate_is_refused_before_its_body_is_read(keyed_and_slow: Gateway) -> None:
    routes = await body_routes(keyed_and_slow)
    assert (await keyed_and_slow.http.get("/v1/workflows", headers=ALICE)).status_code == 200  # the minute's one

    answers = {route: await refused_unread(keyed_and_slow, *route, ALICE) for route in routes}

    assert all(answer == (429, "RATE_LIMITED") for answer in answers.values()), answers
