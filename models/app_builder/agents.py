"""What the app builder's agents receive and return: the analysis agents (one Session_Document each), the planner
(an Execution_Plan draft) and the execution agents (patch intents on the workspace)."""

from pydantic import Field

from llm.types import Message, ToolCall, ToolResultPart
from models.app_builder.documents import AnalysisAgentID, SessionDocument
from models.app_builder.plan import ExecutionPlan, ExecutionPlanTask, PlanIssue
from models.app_builder.quality import Finding
from models.app_builder.workspace import PatchIntent, WorkspaceRef
from models.base import CamelModel
from models.streaming import StreamTarget


class AppBrief(CamelModel):
    """The user's request as every agent reads it."""

    message: str
    """The request; in a follow-up round, the change this round makes."""
    platform: str | None = None
    tech_stack: list[str] = Field(default_factory=list)
    earlier_messages: list[str] = Field(default_factory=list)
    """A follow-up round's chain so far: the first request and the latest changes before this one."""


class AnalysisRequest(CamelModel):
    """One analysis agent's turn: the brief and every document before it."""

    agent_id: AnalysisAgentID
    brief: AppBrief
    previous_documents: list[SessionDocument] = Field(default_factory=list)
    """Every document of the agents before this one, in order."""
    earlier: SessionDocument | None = None
    """A follow-up round: this agent's own document of the base run, to update for the change."""
    use_llm: bool = False
    run_id: str = ""
    stream: StreamTarget | None = None
    """Where the agent streams its document's readable text while the model writes it (None: nowhere)."""


class AnalysisOutcome(CamelModel):
    """The agent's Session_Document, validated against its schema."""

    document: SessionDocument
    offline: bool


class PlanningRequest(CamelModel):
    """The planning layer's input; on the repair round also the refused plan and why."""

    brief: AppBrief
    documents: list[SessionDocument]
    rejected_plan: ExecutionPlan | None = None
    """The repair round: the plan that was refused, with `issues` saying why."""
    issues: list[PlanIssue] = Field(default_factory=list)
    project: WorkspaceRef | None = None
    """A follow-up round: the project as the base run left it; the planner plans only what the change needs."""
    use_llm: bool = False
    run_id: str = ""
    stream: StreamTarget | None = None
    """Where the planner streams its tasks' readable text while the model writes them (None: nowhere)."""


class PlanDraft(CamelModel):
    """The planner's answer: a plan to validate, or (when its output did not even parse) none and why."""

    plan: ExecutionPlan | None
    issues: list[PlanIssue] = Field(default_factory=list)
    documents_ref: str
    """`blob:` reference of the four documents as one JSON list: what every execution agent reads."""
    offline: bool


class TaskRequest(CamelModel):
    """One execution task against the snapshot its wave started from."""

    run_id: str
    task: ExecutionPlanTask
    brief: AppBrief
    documents_ref: str
    workspace: WorkspaceRef
    findings: list[Finding] = Field(default_factory=list)
    """The repair agent's input: what the quality agent found."""
    repair_round: int = 0


class TaskOutcome(CamelModel):
    """What a task produced: its patch intents (by reference) and a summary."""

    task_id: str
    intents: list[PatchIntent]
    summary: str
    offline: bool


class TaskTurnRequest(CamelModel):
    """One LLM turn of a writing agent's tool loop: the task, its conversation so far and its intents so far."""

    request: TaskRequest
    conversation: list[Message] = Field(default_factory=list)
    intents: list[PatchIntent] = Field(default_factory=list)
    tool_calls_made: int = 0
    tools_allowed: bool = True


class TaskTurn(CamelModel):
    """The model's turn: tool calls to run, or (none) its final summary."""

    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)

    def as_message(self) -> Message:
        return Message.assistant(self.text, tuple(self.tool_calls))


class TaskToolRequest(CamelModel):
    """One tool call of a writing agent's loop, against its wave's snapshot and its own earlier writes."""

    request: TaskRequest
    call: ToolCall
    intents: list[PatchIntent] = Field(default_factory=list)


class TaskToolResult(CamelModel):
    """A tool call's answer to the model, and a `write_file` call's intent."""

    call_id: str
    tool: str
    content: str
    """What the model reads back (a file's text, a listing, or an error)."""
    is_error: bool = False
    intent: PatchIntent | None = None
    """A `write_file` call's patch intent."""

    def as_part(self) -> ToolResultPart:
        return ToolResultPart(call_id=self.call_id, name=self.tool, content=self.content, is_error=self.is_error)
