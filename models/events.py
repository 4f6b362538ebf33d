"""The event envelope every workflow family streams (ARCHITECTURE rule 6), and how a family declares its events.

A run appends `RunEvent`s to its log; the gateway serves them as SSE. The envelope is generic; what `data`
holds depends on `type`, and each family declares its types with a pydantic payload model each in an
`EventCatalog`, one of which is terminal: the last event of every run, after which a stream ends.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from models.base import CamelModel
from models.errors import ErrorInfo

RunStatus = Literal["completed", "failed", "timeout", "cancelled"]
"""How a run ended, as its terminal event and the `RunStatus` search attribute say."""


class RunEvent(CamelModel):
    """One event: `seq` equals its offset in the workflow's stream, so SSE `id:` can resume from it."""

    seq: int
    type: str
    node: str
    data: dict[str, Any]
    ts: datetime
    terminal: bool = False
    """True on the run's last event (its family's terminal type)."""


class EventPage(CamelModel):
    """What the `events` query answers: the events after the reader's last one, and whether more follow."""

    events: list[RunEvent]
    more: bool = False


class CarriedEvents(CamelModel):
    """A log's tail carried across continue-as-new: `seq` goes on from where the last run stopped."""

    first_seq: int = 0
    events: list[RunEvent] = Field(default_factory=list)


class RunEnd(CamelModel):
    """Payload of a terminal event: how the run ended and, unless it completed, why."""

    status: RunStatus
    error: ErrorInfo | None = None


@dataclass(frozen=True)
class EventCatalog:
    """A family's event types: each type's payload model, and which type ends a run."""

    payloads: Mapping[str, type[BaseModel]]
    terminal: str

    def __post_init__(self) -> None:
        if self.payloads.get(self.terminal) is not RunEnd:
            raise ValueError(f"the terminal event {self.terminal!r} must carry a RunEnd payload")

    def check(self, type: str, payload: BaseModel) -> None:
        """Refuse an event whose type is not declared or whose payload is not that type's model."""
        expected = self.payloads.get(type)
        if expected is None:
            raise ValueError(f"undeclared event type {type!r}; declared: {', '.join(self.payloads)}")
        if not isinstance(payload, expected):
            raise TypeError(f"event {type!r} carries {expected.__name__}, not {payload.__class__.__name__}")

    def schemas(self) -> dict[str, dict[str, Any]]:
        """Each event type's payload JSON schema (served by `GET /v1/workflows`)."""
        return {name: model.model_json_schema(by_alias=True) for name, model in self.payloads.items()}
