"""The progress events a workflow appends to its stream and the gateway serves as SSE (ARCHITECTURE rule 6)."""

from datetime import datetime
from typing import Any, Literal

from models.base import CamelModel

EventType = Literal[
    "thought_log",
    "progress",
    "gen_ui_component",
    "error",
    "stream_end",
]

EVENTS_TOPIC = "events"


class AgentEvent(CamelModel):
    """One event: `seq` equals its offset in the workflow's stream, so SSE `id:` can resume from it."""

    seq: int
    type: EventType
    node: str
    data: dict[str, Any]
    ts: datetime
