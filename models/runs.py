"""Generic run views shared by every family: a run's place in its graph, the run API's bodies, and run lists."""

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from models.base import CamelModel, RequestModel

SESSION_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
RUN_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""What a run id is made of (`<family>-<16 hex>`); a `fromRun` of another shape is refused as INVALID_REQUEST, one
of this shape that names no run of the caller's as RUN_NOT_FOUND."""

ListedStatus = Literal["running", "waiting", "completed", "failed", "timeout", "cancelled", "terminated"]
"""A run's status in lists: `running` and `waiting` (for a person's answer) while open, then how it ended."""


class GraphPosition(CamelModel):
    """Where a run is in its declared graph and the transitions it took (checked against the graph)."""

    current_node: str = "start"
    transitions: list[tuple[str, str]] = Field(default_factory=list)


class RunStartRequest(RequestModel):
    """`POST /v1/runs`: which workflow, its input (validated against the workflow's input model), a session."""

    workflow: str
    input: dict[str, Any] = Field(default_factory=dict)
    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)


class RunTicket(CamelModel):
    """A started (or queued) run: its id, its session, and how many runs are ahead of it in that session."""

    run_id: str
    workflow: str
    session_id: str | None = None
    position: int = 0


class RunSummary(CamelModel):
    """One row of `GET /v1/runs`."""

    run_id: str
    workflow: str
    status: ListedStatus
    session_id: str | None = None
    start_time: datetime | None = None
    close_time: datetime | None = None


class RunPage(CamelModel):
    """A page of runs, newest first; pass `nextPageToken` back as `pageToken` for the next page."""

    runs: list[RunSummary]
    next_page_token: str | None = None


class WorkflowInfo(CamelModel):
    """One registered workflow, as `GET /v1/workflows` lists it."""

    name: str
    family: str
    description: str
    startable: bool
    """Whether `POST /v1/runs` starts it (a session workflow is started by its family's runs instead)."""
    task_queue: str
    input_schema: dict[str, Any] | None
    state_schema: dict[str, Any]
    event_types: dict[str, dict[str, Any]]
    """Each event type's payload JSON schema (empty for a workflow without an event stream)."""
    terminal_event: str | None
    graph: str | None
    """The declared graph as Mermaid, when the workflow has one."""
