"""A small Server-Sent Events parser for tests."""

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class SseEvent:
    """One parsed Server-Sent Event."""

    id: int | None
    """None for an event that is not one of the run's (the gateway's `STREAM_INTERRUPTED` error)."""
    event: str
    data: dict[str, Any]


def parse_sse(text: str) -> list[SseEvent]:
    events = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith(":") or ": " not in line:
                continue
            name, value = line.split(": ", 1)
            fields[name] = value
        if "data" in fields:
            event_id = int(fields["id"]) if "id" in fields else None
            events.append(SseEvent(id=event_id, event=fields["event"], data=json.loads(fields["data"])))
    return events


async def sse_stream(response: httpx.Response) -> AsyncIterator[SseEvent]:
    """A streamed response's events as they arrive (keepalive comments skipped)."""
    buffer = ""
    async for chunk in response.aiter_text():
        buffer += chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            for event in parse_sse(block + "\n\n"):
                yield event
