"""Issue 50 #4: slow clients are timed out (`api.slow_clients`). Five hundred half-sent requests were all held for
75 s, one still after 300 s. Over a real socket, with the deadlines shortened: a connection that sends half its
headers, or nothing, is closed; a body that stops coming is answered 408 `REQUEST_TIMEOUT` and the connection
closed; a request that comes whole is served, and its kept-alive connection's next request is held to the same
deadline."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import pytest

from api import body_limits, slow_clients
from tests.api.conftest import Gateway
from tests.api.sockets import on_a_socket

DEADLINE = 0.5


@pytest.fixture
def short_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slow_clients, "HEADER_SECONDS", DEADLINE)
    monkeypatch.setattr(body_limits, "BODY_IDLE_SECONDS", DEADLINE)


@pytest.fixture
async def served(gateway: Gateway, short_deadlines: None) -> AsyncIterator[tuple[str, int]]:
    """The gateway on a socket, run as `api.server` runs it (`HeaderDeadlineProtocol`)."""
    async with on_a_socket(gateway.app, http=slow_clients.HeaderDeadlineProtocol) as base:
        host, port = base.removeprefix("ws://").split(":")
        yield host, int(port)


@asynccontextmanager
async def connection(address: tuple[str, int]) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    reader, writer = await asyncio.open_connection(*address)
    try:
        yield reader, writer
    finally:
        writer.close()
        with suppress(ConnectionError):
            await writer.wait_closed()


async def answer(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection (at most 10 s)."""
    return await asyncio.wait_for(reader.read(), 10)


async def test_a_connection_that_sends_half_its_headers_or_nothing_is_closed(served: tuple[str, int]) -> None:
    async with connection(served) as (half, half_writer), connection(served) as (silent, _):
        half_writer.write(b"GET /healthz HTTP/1.1\r\nHost: gateway\r\n")

        assert await answer(half) == b"" and await answer(silent) == b""  # closed, with nothing said


async def test_a_kept_alive_connection_s_next_request_has_the_same_deadline(served: tuple[str, int]) -> None:
    async with connection(served) as (reader, writer):
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n")
        first = await asyncio.wait_for(reader.readuntil(b'{"status":"ok"}'), 10)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: gat")

        assert first.startswith(b"HTTP/1.1 200")
        assert await answer(reader) == b""


async def test_a_body_that_stops_coming_is_answered_408_and_the_connection_closed(served: tuple[str, int]) -> None:
    async with connection(served) as (reader, writer):
        writer.write(
            b"POST /v1/writing/projects HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"name": "'
        )

        answered = await answer(reader)

    assert answered.startswith(b"HTTP/1.1 408"), answered[:200]
    assert b"REQUEST_TIMEOUT" in answered and b"connection: close" in answered.lower()
