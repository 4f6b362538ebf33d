"""The gateway as its own process (uvicorn), for tests that need real sockets and an event loop nothing else in
the test shares. Run as `python -m tests.gateway_process`: it serves `api.server.create_app()` with the tiny
test family registered too, plus two test-only routes reporting how long its event loop was ever blocked."""

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI

from api.server import create_app
from models.settings import Settings
from tests.stack_process import REPO, free_port
from tests.workflows.common.tiny import TINY_WORKFLOWS
from workflows.registry import REGISTRY

TICK = 0.005


class LoopWatch:
    """The longest the event loop went without running a 5 ms tick while its thread was computing, in seconds.

    A late tick counts only as long as the loop's thread used the CPU meanwhile (`time.thread_time`): work on the
    loop delays the tick by as much as it computes, while a machine whose other processes (the worker, Temporal, the
    intake process decoding masks) keep both cores busy delays it without the loop doing anything."""

    def __init__(self) -> None:
        self.longest_block = 0.0
        self.ticks = 0

    async def watch(self) -> None:
        while True:
            before, computed_before = time.perf_counter(), time.thread_time()
            await asyncio.sleep(TICK)
            late = time.perf_counter() - before - TICK
            computing = time.thread_time() - computed_before
            self.longest_block = max(self.longest_block, min(late, computing))
            self.ticks += 1


def watched_app() -> FastAPI:
    app = create_app(Settings(), registry=REGISTRY.extended(*TINY_WORKFLOWS))
    watch = LoopWatch()
    serve = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(application: FastAPI) -> AsyncIterator[None]:
        if os.environ.get("LOOP_DEBUG"):
            import logging

            logging.basicConfig()
            loop = asyncio.get_running_loop()
            loop.set_debug(True)
            loop.slow_callback_duration = 0.03
        task = asyncio.create_task(watch.watch())
        async with serve(application):
            yield
        task.cancel()

    app.router.lifespan_context = lifespan

    @app.post("/_test/loop-watch/reset", include_in_schema=False)
    async def reset() -> None:
        watch.longest_block, watch.ticks = 0.0, 0

    @app.get("/_test/loop-watch", include_in_schema=False)
    async def report() -> dict[str, float]:
        return {"longestBlock": watch.longest_block, "ticks": watch.ticks}

    return app


@dataclass(frozen=True)
class GatewayProcess:
    """Where the gateway process listens."""

    url: str


@contextmanager
def gateway_process(settings: Settings, log: Path, **extra_env: str) -> Iterator[GatewayProcess]:
    """Start the gateway as a process against the settings' Temporal server, data dir and task queues
    (`extra_env`: more settings, by variable name)."""
    port = free_port()
    env = (
        os.environ
        | extra_env
        | {
            "TEMPORAL_HOST": settings.temporal_host,
            "TEMPORAL_PORT": str(settings.temporal_port),
            "TASK_QUEUE_PREFIX": settings.task_queue_prefix,
            "DATA_DIR": str(settings.data_dir),
            "API_PORT": str(port),
        }
    )
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.gateway_process"], cwd=REPO, env=env, stdout=out, stderr=out
        )
        try:
            deadline = time.monotonic() + 60
            while not _healthy(url):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the gateway did not start:\n{log.read_text()}")
                time.sleep(0.1)
            yield GatewayProcess(url)
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
    except httpx.TransportError:
        return False


if __name__ == "__main__":
    settings = Settings()
    uvicorn.run(watched_app(), host="127.0.0.1", port=settings.api_port, log_level="warning")
