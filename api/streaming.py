"""The one module that turns a run's event stream into Server-Sent Events, for every family.

Events come from `temporalio.contrib.workflow_streams` (long-poll updates while the run is open, queries once it
has closed). Each event becomes `id: <seq>`, `event: <type>`, `data: <json>` (blob references made URLs); a
client that reconnects with `Last-Event-ID: n` resumes at n + 1, so it misses nothing and sees nothing twice.
The stream ends after the run's terminal event (whatever its family calls it). While nothing happens, a comment
line keeps proxies from closing the connection.
"""

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import suppress
from datetime import timedelta

from temporalio.client import Client
from temporalio.contrib.workflow_streams import WorkflowStreamClient
from temporalio.service import RPCError, RPCStatusCode

from api.blob_urls import present
from models.events import EVENTS_TOPIC, RunEvent

KEEPALIVE_SECONDS = 15.0
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
POLL_COOLDOWN = timedelta(milliseconds=50)
STARTING_RUN_SECONDS = 10.0
"""How long a stream waits for a run the gateway has just started to exist on the server."""
_STARTING_RUN_POLL = 0.02


def first_offset(last_event_id: str | None) -> int:
    """Where to resume: after the last event the client saw (SSE `Last-Event-ID`), else from the start."""
    if last_event_id is None or not last_event_id.strip().isdigit():
        return 0
    return int(last_event_id) + 1


def format_sse(event: RunEvent, base_url: str) -> str:
    data = present(event.model_dump(mode="json", by_alias=True), base_url)
    return f"id: {event.seq}\nevent: {event.type}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def run_events(
    client: Client, run_id: str, from_offset: int = 0, *, starting: bool = False
) -> AsyncIterator[RunEvent]:
    """A run's events from `from_offset` on, ending with its terminal event. `starting`: the run was just
    started (its start may not have reached the server yet), so a missing run is waited for a few seconds."""
    stream = WorkflowStreamClient.create(client, run_id)
    offset = from_offset
    patience = asyncio.get_running_loop().time() + (STARTING_RUN_SECONDS if starting else 0)
    while True:
        try:
            async for item in stream.subscribe(
                [EVENTS_TOPIC], from_offset=offset, result_type=RunEvent, poll_cooldown=POLL_COOLDOWN
            ):
                yield item.data
                offset = item.offset + 1
                if item.data.terminal:
                    return
            return
        except RPCError as err:
            missing = err.status == RPCStatusCode.NOT_FOUND and offset == from_offset
            if not missing or asyncio.get_running_loop().time() > patience:
                raise
            await asyncio.sleep(_STARTING_RUN_POLL)


async def sse_stream(
    client: Client, run_id: str, base_url: str, from_offset: int = 0, *, starting: bool = False
) -> AsyncIterator[str]:
    queue: asyncio.Queue[RunEvent | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in run_events(client, run_id, from_offset, starting=starting):
                await queue.put(event)
        finally:
            await queue.put(None)

    task = asyncio.create_task(pump())
    try:
        while True:
            try:
                event = await asyncio.wait_for(queue.get(), timeout=KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            if event is None:
                break
            yield format_sse(event, base_url)
        await task  # surfaces an error the subscription ended with
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
