"""The image agent's events (seeds 000 §6, 004 §10): each type with its payload model; `stream_end` ends a run."""

from typing import Literal

from models.base import CamelModel
from models.errors import ErrorInfo
from models.events import EventCatalog, RunEnd
from models.image.genui import GenUIComponent


class ThoughtLog(CamelModel):
    """`thought_log`: what a node is doing, in a sentence (seed 004 §10)."""

    node: str
    message: str
    level: Literal["info", "warning"] | None = None
    code: str | None = None
    """An `ErrorCode` when the thought reports a problem the run got past (e.g. INPUT_TRUNCATED)."""
    intent: str | None = None
    score: float | None = None


class Progress(CamelModel):
    """`progress`: a node's progress, 0–100."""

    node: str
    message: str
    percent: int


class Queued(CamelModel):
    """`queued`: the run waits behind earlier messages of its session (seed 000 §7.5)."""

    position: int
    message: str


IMAGE_EVENTS = EventCatalog(
    payloads={
        "queued": Queued,
        "thought_log": ThoughtLog,
        "progress": Progress,
        "gen_ui_component": GenUIComponent,
        "error": ErrorInfo,
        "stream_end": RunEnd,
    },
    terminal="stream_end",
)
