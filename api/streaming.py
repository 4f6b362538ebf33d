"""The one module that turns a workflow's event stream into Server-Sent Events.

Events come from `temporalio.contrib.workflow_streams` (long-poll updates while the run is open, queries once it
has closed). Each event becomes `id: <seq>`, `event: <type>`, `data: <json>`; a client that reconnects with
`Last-Event-ID: n` resumes at n + 1, so it misses nothing and sees nothing twice. The stream ends after
`stream_end`. While nothing happens, a comment line keeps proxies from closing the connection.
"""

import asyncio
from collections.abc import AsyncIterator
from contextlib import suppress
from datetime import timedelta

from temporalio.client import Client
from temporalio.contrib.workflow_streams import WorkflowStreamClient

from models.events import EVENTS_TOPIC, AgentEvent

KEEPALIVE_SECONDS = 15.0
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
POLL_COOLDOWN = timedelta(milliseconds=50)


def first_offset(last_event_id: str | None) -> int:
    """Where to resume: after the last event the client saw (SSE `Last-Event-ID`), else from the start."""
    if last_event_id is None or not last_event_id.strip().isdigit():
        return 0
    return int(last_event_id) + 1


def format_sse(event: AgentEvent) -> str:
    return f"id: {event.seq}\nevent: {event.type}\ndata: {event.model_dump_json(by_alias=True)}\n\n"


async def run_events(client: Client, run_id: str, from_offset: int = 0) -> AsyncIterator[AgentEvent]:
    """A run's events from `from_offset` on, ending with its `stream_end`."""
    stream = WorkflowStreamClient.create(client, run_id)
    async for item in stream.subscribe(
        [EVENTS_TOPIC], from_offset=from_offset, result_type=AgentEvent, poll_cooldown=POLL_COOLDOWN
    ):
        yield item.data
        if item.data.type == "stream_end":
            return


async def sse_stream(client: Client, run_id: str, from_offset: int = 0) -> AsyncIterator[str]:
    queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in run_events(client, run_id, from_offset):
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
            yield format_sse(event)
        await task  # surfaces an error the subscription ended with
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
