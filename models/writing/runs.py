"""A writing run as the platform sees it: the chat request, the workflow's input, its queryable state and its
result; and the same for the relationship-graph update that outlives the request."""

from datetime import datetime

from pydantic import Field

from models.base import CamelModel, RequestModel
from models.errors import ErrorInfo
from models.events import RunStatus
from models.runs import SESSION_ID_PATTERN, GraphPosition
from models.writing.agents import MAX_TEXT_CHARS, AgentResult, ChainContext
from models.writing.checks import CheckResult
from models.writing.context import PreprocessingContext
from models.writing.events import TaskTiming
from models.writing.intents import IntentResult, WorkflowKind
from models.writing.nodes import RelationshipUpdateRequest, RelationshipUpdateResult


class WritingChatRequest(RequestModel):
    """`POST /v1/writing/projects/{projectId}/chat`: what the writer says, and a chain to continue (Req 14.6)."""

    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)
    chain_context: ChainContext | None = None


class WritingRunInput(CamelModel):
    """What a `WritingWorkflow` run needs: the request, whose project it is, and the limits from settings."""

    owner: str
    project_id: str
    text: str = Field(max_length=MAX_TEXT_CHARS)
    session_id: str | None = None
    chain_context: ChainContext | None = None
    llm_configured: bool = False
    deadline_seconds: float
    """The run's active work (routing, preprocessing, agents, checks); a chain's wait for the writer comes on top."""
    input_timeout_seconds: float
    """How long a chain waits for the writer's choice before it ends (WRITING_INPUT_TIMEOUT_HOURS)."""


class WritingMetadata(GraphPosition):
    """Where the run is in its graph, and when it started."""

    start_time: datetime


class WritingState(CamelModel):
    """A writing run's whole state, served by `GET /v1/runs/{id}`."""

    project_id: str
    text: str
    metadata: WritingMetadata
    intent: IntentResult | None = None
    workflow: WorkflowKind | None = None
    preprocessing_context: PreprocessingContext | None = None
    task_timings: list[TaskTiming] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    enhanced_system_prompt: str | None = None
    result: AgentResult | None = None
    """The last agent's answer; its `text` is whole here, however it was streamed."""
    chain: ChainContext | None = None
    check_result: CheckResult | None = None
    relationship_run_id: str | None = None
    error: ErrorInfo | None = None

    @property
    def position(self) -> GraphPosition:
        return self.metadata


class WritingResult(CamelModel):
    """What a `WritingWorkflow` run returns."""

    status: RunStatus
    workflow: WorkflowKind | None
    text: str
    chain_context: ChainContext | None = None


class RelationshipRunInput(CamelModel):
    """The relationship-graph update a character design schedules, and the run that scheduled it."""

    request: RelationshipUpdateRequest
    requested_by: str
    english: bool = False
    """Whether the scheduling request was written in English: the update's messages are then English too."""


class RelationshipRunState(CamelModel):
    """The relationship update's state: where it is, what it changed, what went wrong."""

    requested_by: str
    metadata: WritingMetadata
    result: RelationshipUpdateResult | None = None
    error: ErrorInfo | None = None

    @property
    def position(self) -> GraphPosition:
        return self.metadata
