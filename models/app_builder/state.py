"""The app run's blackboard (seed 003 "Blackboard 扩展") as queryable workflow state: the four Session_Documents,
the Execution_Plan, every task's record, the workspace snapshot, merges and conflicts, the quality rounds, and
the execution layer's output (`patchIntents`, `touchedFiles`, `degradedTasks`, `unresolvedIssues`), and the
preview of the final workspace's build."""

from datetime import datetime
from typing import Literal

from pydantic import Field

from models.app_builder.agents import AppBrief
from models.app_builder.documents import SessionDocument
from models.app_builder.plan import ExecutionPlan, PlanIssue
from models.app_builder.quality import PreviewBuild, QualityReport
from models.app_builder.rounds import RoundChanges
from models.app_builder.workspace import ConflictRecord, MergedFile, PatchIntent, WorkspaceRef
from models.base import CamelModel
from models.errors import ErrorInfo
from models.runs import GraphPosition

Layer = Literal["analysis", "planning", "execution"]
TaskStatus = Literal["pending", "running", "completed", "failed", "skipped", "degraded", "not_needed"]
"""`skipped`: a task it depends on failed or was skipped; `degraded`: its files still had findings after the
repair rounds; `not_needed`: a repair task whose quality check passed."""


class TaskRecord(CamelModel):
    """One plan task on the blackboard: its wave, status, files and timing."""

    task_id: str
    agent_id: str
    goal: str
    wave: int | None = None
    """1-based; None for repair tasks, which run as the quality gate's repair rounds."""
    status: TaskStatus = "pending"
    summary: str = ""
    files: list[str] = Field(default_factory=list)
    """Paths its patch intents touched."""
    offline: bool | None = None
    error: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None


class FailedTask(CamelModel):
    """A task that failed for good, with why (the blackboard's `getFailedTasks()`)."""

    task_id: str
    error: str


class AppBuilderState(CamelModel):
    """Everything the run knows, as the `state` query returns it."""

    brief: AppBrief
    round: int = 1
    """The run's round in its chain of follow-up changes (1: built from scratch)."""
    base_run_id: str | None = None
    """The run this round changed (None for round 1)."""
    earlier_messages: list[str] = Field(default_factory=list)
    """The chain's messages before this round's own, from round 1 on."""
    changes: RoundChanges | None = None
    """What this round added, modified and removed against its base (set at the end)."""
    layer: Layer | None = None
    documents: list[SessionDocument] = Field(default_factory=list)
    documents_ref: str | None = None
    plan: ExecutionPlan | None = None
    plan_issues: list[PlanIssue] = Field(default_factory=list)
    """Why the planner's last refused plan was refused."""
    plan_repaired: bool = False
    waves: list[list[str]] = Field(default_factory=list)
    tasks: dict[str, TaskRecord] = Field(default_factory=dict)
    workspace: WorkspaceRef = Field(default_factory=WorkspaceRef)
    patch_intents: list[PatchIntent] = Field(default_factory=list)
    touched_files: list[str] = Field(default_factory=list)
    merged_files: list[MergedFile] = Field(default_factory=list)
    conflicts: list[ConflictRecord] = Field(default_factory=list)
    quality: list[QualityReport] = Field(default_factory=list)
    repair_rounds: int = 0
    degraded_tasks: list[str] = Field(default_factory=list)
    unresolved_issues: list[str] = Field(default_factory=list)
    generated_components: list[str] = Field(default_factory=list)
    preview: PreviewBuild | None = None
    """The build of the last check, when that check was of the final workspace (served by
    `GET /v1/apps/runs/{id}/preview`)."""
    preview_note: str | None = None
    """Why the run has no preview (set at the end when `preview` is None)."""
    failed_tasks: list[FailedTask] = Field(default_factory=list)
    success: bool | None = None
    """Set at the end: every task completed (or not needed) and the last quality check passed."""
    graph: GraphPosition = Field(default_factory=GraphPosition)
    error: ErrorInfo | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def position(self) -> GraphPosition:
        return self.graph
