"""Issue 50 #14: an unexpected error (a run's state query that failed, in the finding) is a response, not a dropped
connection. Raised past Starlette's server-error middleware, it made uvicorn close the client's kept-alive
connection after the 500; the gateway's error handling (`api.errors`) answers it itself. Two requests on one
connection, over a real socket: the first fails, the second is answered on the same connection."""

import asyncio

from fastapi import FastAPI

from api.errors import install_error_handlers
from tests.api.sockets import on_a_socket


class QueryFailed(Exception):
    """Stands in for whatever a route did not expect (temporalio's `WorkflowQueryFailedError` in the finding)."""


def app_with_a_failing_route() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/fails")
    async def fails() -> dict[str, str]:
        raise QueryFailed("the run's history could not be replayed")

    @app.get("/works")
    async def works() -> dict[str, str]:
        return {"status": "ok"}

    return app


async def response_on(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    status = int((await reader.readline()).split()[1])
    headers: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers, body


async def test_a_500_keeps_the_connection_for_the_next_request() -> None:
    async with on_a_socket(app_with_a_failing_route()) as base:
        host, port = base.removeprefix("ws://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            writer.write(b"GET /fails HTTP/1.1\r\nHost: gateway\r\n\r\n")
            failed = await asyncio.wait_for(response_on(reader), 10)
            writer.write(b"GET /works HTTP/1.1\r\nHost: gateway\r\n\r\n")
            answered = await asyncio.wait_for(response_on(reader), 10)
        finally:
            writer.close()

    assert failed[0] == 500 and b"INTERNAL_ERROR" in failed[2] and failed[1].get("connection") != "close"
    assert failed[1]["x-request-id"] and failed[1]["x-content-type-options"] == "nosniff"
    assert answered[0] == 200 and answered[2] == b'{"status":"ok"}'
