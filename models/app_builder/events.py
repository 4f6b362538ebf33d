"""The app run's events: each type with its payload model; `done` ends a run.

A run streams `layer_started` for analysis, planning and execution; `content` while an analysis agent or the
planner writes with a model (its answer's readable values as they are written, `models.streaming`);
`document_ready` per Session_Document;
`plan_ready` with the validated plan and its waves; `wave_started`; `task_started` and `task_finished` for every
task (also a skipped one); `conflict` for every file two tasks changed (merged, or kept both); `quality_result`
per quality round and `repair_round` per repair; `app_ready` with what the workspace holds; `thought_log` for
what the run decides; `error` when it fails; and `done` last. `document_ready`, `plan_ready`, `task_finished` and
`app_ready` say `offline` when an offline agent, not a model, did the work.
"""

from typing import Literal

from pydantic import BaseModel, Field

from models.app_builder.documents import AnalysisAgentID
from models.app_builder.quality import Finding
from models.app_builder.rounds import RoundChanges
from models.app_builder.state import Layer, TaskStatus
from models.base import CamelModel
from models.errors import ErrorInfo
from models.events import EventCatalog, RunEnd
from models.streaming import ContentChunk


class AppThought(CamelModel):
    """`thought_log`: what the run is doing, in a sentence."""

    message: str
    level: Literal["info", "warning"] = "info"


class LayerStarted(CamelModel):
    """`layer_started`: analysis, planning or execution begins."""

    layer: Layer


class DocumentReady(CamelModel):
    """`document_ready`: an analysis agent's Session_Document passed its schema."""

    agent_id: AnalysisAgentID
    document_id: str
    summary: str
    offline: bool
    version: int = 1
    update: bool = False
    """A follow-up round's document: the agent's earlier document updated for the change (`version` one higher)."""


class PlannedTask(CamelModel):
    """One task of the plan as `plan_ready` shows it."""

    id: str
    agent_id: str
    goal: str
    depends_on: list[str]
    tools: list[str]


class PlanReady(CamelModel):
    """`plan_ready`: the validated Execution_Plan and its waves."""

    plan_id: str
    tasks: list[PlannedTask]
    waves: list[list[str]]
    repaired: bool
    """True when the first plan was refused and the repair round's plan passed."""
    offline: bool


class WaveStarted(CamelModel):
    """`wave_started`: the tasks of one wave start side by side."""

    wave: int
    task_ids: list[str]


class TaskStarted(CamelModel):
    """`task_started`: one task begins."""

    task_id: str
    agent_id: str
    goal: str
    wave: int | None


class TaskFinished(CamelModel):
    """`task_finished`: how one task ended, with the files its patch intents touched."""

    task_id: str
    agent_id: str
    status: TaskStatus
    summary: str = ""
    files: list[str] = Field(default_factory=list)
    error: str | None = None
    offline: bool | None = None
    """True when an offline agent (no model) did the task; absent for a task no agent ran."""


class ConflictFound(CamelModel):
    """`conflict`: several tasks changed one file; `merged` when the three-way merge combined them, else both
    versions are kept (by key in the state's `conflicts`) and the first task's stays in the workspace."""

    path: str
    task_ids: list[str]
    merged: bool
    kept_task_id: str | None = None
    regions: int = 0


class QualityResult(CamelModel):
    """`quality_result`: one quality round's verdict, counts and first findings."""

    round: int
    passed: bool
    files_checked: int
    checks_run: list[str]
    counts: dict[str, int]
    findings: list[Finding] = Field(default_factory=list)
    """The first findings (the state's `quality` keeps the report)."""
    notes: list[str] = Field(default_factory=list)


class RepairRound(CamelModel):
    """`repair_round`: the repair agent gets the findings."""

    round: int
    max_rounds: int
    task_id: str
    findings: int


class AppReady(CamelModel):
    """`app_ready`: the workspace is final; download it from `GET /v1/apps/runs/{id}/workspace.zip`."""

    files: int
    bytes: int
    success: bool
    degraded_tasks: list[str]
    unresolved_issues: list[str]
    failed_tasks: list[str]
    skipped_tasks: list[str]
    conflicts: int
    merged_files: int
    offline: bool = False
    """True when offline agents (no model) wrote any of the run's documents, plan or files."""
    preview: bool = False
    """True when the run has a preview of its final workspace (`GET /v1/apps/runs/{id}/preview`)."""
    round: int = 1
    base_run_id: str | None = None
    changes: RoundChanges | None = None
    """What the round added, modified and removed against its base (round 1: every file added)."""


APP_BUILDER_EVENT_PAYLOADS: dict[str, type[BaseModel]] = {
    "thought_log": AppThought,
    "layer_started": LayerStarted,
    "content": ContentChunk,
    "document_ready": DocumentReady,
    "plan_ready": PlanReady,
    "wave_started": WaveStarted,
    "task_started": TaskStarted,
    "task_finished": TaskFinished,
    "conflict": ConflictFound,
    "quality_result": QualityResult,
    "repair_round": RepairRound,
    "app_ready": AppReady,
    "error": ErrorInfo,
    "done": RunEnd,
}

APP_BUILDER_EVENTS = EventCatalog(payloads=APP_BUILDER_EVENT_PAYLOADS, terminal="done")
