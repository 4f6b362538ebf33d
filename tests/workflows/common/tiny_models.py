"""Inputs, state and events of the tiny workflows that exercise the shared run machinery (no family uses them)."""

from typing import Annotated, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from models.base import CamelModel
from models.errors import ErrorInfo
from models.events import CarriedEvents, EventCatalog, RunEnd
from models.human_input import HUMAN_INPUT_EVENTS, AwaitingInput
from models.nodes import ActivitySpec
from models.runs import GraphPosition


class Note(CamelModel):
    """`note`: a line a tiny workflow writes."""

    text: str


class TinyState(CamelModel):
    """A tiny workflow's state: its place in its graph, its error, its question and the answer it got."""

    metadata: GraphPosition = Field(default_factory=GraphPosition)
    error: ErrorInfo | None = None
    awaiting_input: AwaitingInput | None = None
    answer: str | None = None

    @property
    def position(self) -> GraphPosition:
        return self.metadata


class AskInput(CamelModel):
    """What AskWorkflow asks, which options it offers, and how long it waits."""

    prompt: str = Field(default="Which colour?", max_length=200)
    options: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=lambda: ["red", "blue"], max_length=6)
    allow_free_text: bool = False
    timeout_seconds: float = 3600
    linger_seconds: float = 0
    """How long the run goes on after the answer (a run that is running but no longer asks)."""


class ProbeInput(CamelModel):
    """How GraphProbeWorkflow's first node behaves."""

    behaviour: Literal[
        "ok", "undeclared", "crash", "slow", "activity_fails", "activity_ok", "cpu_fan_out", "fan_out"
    ] = "ok"
    deadline_seconds: float = 60


class CountInput(CamelModel):
    """CountingWorkflow: `per_run` notes in each of `runs` runs, continuing-as-new between them."""

    per_run: int = Field(default=3, ge=0, le=100)
    runs: int = Field(default=3, ge=1, le=100)
    done_runs: int = Field(default=0, ge=0, le=100)
    events: SkipJsonSchema[CarriedEvents] | None = None
    """Carried across continue-as-new, never sent by a client: left out of the schema, so of the body limit."""


class EchoRequest(CamelModel):
    """The tiny activity's input."""

    text: str
    fail: bool = False
    blocking_seconds: float = 0
    """Blocking work first (a render's stand-in), on the activity's one thread."""


class EchoResult(CamelModel):
    """The tiny activity's result, and where and how it ran."""

    text: str
    task_queue: str = ""
    attempt: int = 1
    running_at_once: int = 1
    """Attempts of the activity running in this process when this one started its work, itself included."""


ECHO = ActivitySpec("test.echo", EchoRequest, EchoResult)

TINY_EVENTS = EventCatalog(payloads={"note": Note, **HUMAN_INPUT_EVENTS, "done": RunEnd}, terminal="done")
