"""A gateway process with small admission limits (they stand in for 50 and 100), every family's worker and the
tiny test family behind it, and helpers to read the first events of a stream and to wait for a run's end."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.gateway_process import gateway_process
from tests.sse import SseEvent, parse_sse
from tests.workflows.common.tiny import TINY_WORKFLOWS
from tests.workflows.harness import settings_for
from worker import build_activities, running_workers
from workflows.registry import REGISTRY

SLOW = {"workflow": "GraphProbeWorkflow", "input": {"behaviour": "slow", "deadlineSeconds": 3600}}
"""A run that holds its place (it sleeps an hour) without ever waiting for a person."""
SSE = {"accept": "text/event-stream"}


@asynccontextmanager
async def limited_gateway(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, **limits: str
) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client into a gateway process run with `limits` (settings, by variable name)."""
    host, port = env.client.service_client.config.target_host.rsplit(":", 1)
    settings = settings_for(tmp_path, temporal_host=host, temporal_port=int(port))
    registry = REGISTRY.extended(*TINY_WORKFLOWS)
    activities = build_activities(settings, style_store=style_store)
    async with running_workers(env.client, settings, activities, registry):
        with gateway_process(settings, tmp_path / "gateway.log", **limits) as gateway:
            async with httpx.AsyncClient(base_url=gateway.url, timeout=60) as http:
                yield http


async def events_until(response: httpx.Response, stop: str, seen: list[SseEvent], arrived: asyncio.Event) -> None:
    """Read `response`'s events into `seen` (setting `arrived` at each) until one named `stop`."""
    buffer = ""
    async for chunk in response.aiter_text():
        buffer += chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            seen.extend(parse_sse(block + "\n\n"))
            arrived.set()
            if seen and seen[-1].event == stop:
                return


async def closed(http: httpx.AsyncClient, run_id: str, headers: dict[str, str] | None = None) -> None:
    """Return once the run is no longer running."""
    for _ in range(300):
        if (await http.get(f"/v1/runs/{run_id}", headers=headers)).json()["status"] != "running":
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{run_id} is still running")
