"""A small Server-Sent Events parser for tests."""

import json
from dataclasses import dataclass
from typing import Any


@dataclass
class SseEvent:
    """One parsed Server-Sent Event."""

    id: int
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
            events.append(SseEvent(id=int(fields["id"]), event=fields["event"], data=json.loads(fields["data"])))
    return events
