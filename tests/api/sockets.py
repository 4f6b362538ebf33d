"""The in-process gateway on a real loopback socket (uvicorn), for what needs one: a WebSocket, a stream read while
the run goes on, a worker posting to the gateway."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI

from tests.stack_process import free_port


@asynccontextmanager
async def on_a_socket(app: FastAPI, port: int | None = None, *, http: Any = "auto") -> AsyncIterator[str]:
    """`app` (its lifespan already running) served by uvicorn on `port` (a free loopback one by default), with the
    HTTP protocol `http` (uvicorn's choice by default); yields its ws:// base."""
    port = port or free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning", http=http)
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        assert not serving.done(), "uvicorn did not start"
        await asyncio.sleep(0.01)
    try:
        yield f"ws://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await serving
