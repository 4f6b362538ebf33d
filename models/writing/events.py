"""The writing family's events (seed 002 Req 9, 13, 14): each type with its payload model; `done` ends a run.

A single-agent run streams `intent_recognized` → `workflow_preprocessing` → one `preprocessing_task` per task
(with its timing) → `agent_started` → `content` → `processing_check` → `check_result` (or the workflow's own
post-processing event) → `done`; a chain adds a `thought_log` at each agent transition, `user_input_required`
where the writer chooses, and `chain_summary` before `done`. `done` is last, also after an `error`.
"""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from models.base import CamelModel
from models.errors import ErrorInfo
from models.events import EventCatalog, RunEnd
from models.human_input import HUMAN_INPUT_EVENTS
from models.streaming import ContentChunk
from models.writing.agents import (
    AgentName,
    ChainContext,
    ChainStepOutput,
    CharacterSketch,
    OutlineSection,
    ProposedPlotLoop,
    RelationshipEdge,
)
from models.writing.checks import CheckResult
from models.writing.context import ConsistencyIssue, PlotLoopState, PreprocessingTask
from models.writing.intents import IntentResult, WorkflowKind
from models.writing.proposals import AlreadyThere, RelationshipChange


class IntentRecognized(CamelModel):
    """`intent_recognized`: what the router made of the request and the workflow that serves it (Req 1.1)."""

    intent: IntentResult
    workflow: WorkflowKind
    continued_chain: bool = False
    """True when the request carried a `chainContext`: the router was skipped and the chain goes on (Req 14.6)."""


class WritingThought(CamelModel):
    """`thought_log`: what the run is doing, in a sentence: the active skills (Req 8.3), a chain's agent
    transitions (Req 14.4), a degraded phase."""

    node: str
    message: str
    level: Literal["info", "warning"] | None = None
    skills: list[str] | None = None
    transition: tuple[str, str] | None = None
    """A chain's step: from agent, to agent."""


class PreprocessingStarted(CamelModel):
    """`workflow_preprocessing`: the tasks that start together (Req 9.1)."""

    workflow: WorkflowKind
    tasks: list[PreprocessingTask]
    message: str


class TaskTiming(CamelModel):
    """`preprocessing_task`: one task done, with its timing (Req 9.2); a failed task's warning (Req 2.5)."""

    task: PreprocessingTask
    status: Literal["ok", "failed"]
    elapsed_ms: float | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    items: int = 0
    warning: str | None = None


class AgentStarted(CamelModel):
    """`agent_started` (Req 9.3): which agent, with what context and skills."""

    agent: AgentName
    workflow: WorkflowKind
    skills: list[str] = Field(default_factory=list)
    context_tasks: list[PreprocessingTask] = Field(default_factory=list)
    """The tasks whose results are in its `preprocessingContext`; empty for SimpleAgent (no preprocessing)."""
    step: int | None = None
    """Its place in a chain (1 for the first agent)."""


class ProcessingCheck(CamelModel):
    """`processing_check` (Req 9.4): post-processing starts; what it checks."""

    checks: list[str]
    message: str


RELATIONSHIP_SIGNAL = "relationship_update"
"""The signal a relationship update's run sends the request that scheduled it, with its `RelationshipUpdate`."""


class RelationshipUpdate(CamelModel):
    """`relationship_update` (Req 4.3–4.4): the relationship graph's update, done by its own run (which outlives
    the request) and shown in the request's stream too; `scheduled` when the request stopped waiting for it."""

    status: Literal["scheduled", "updated", "proposed", "failed"]
    """`proposed`: the design's relationships wait as proposals for the writer (`changes`: before and after)."""
    run_id: str
    added: list[RelationshipEdge] = Field(default_factory=list)
    changed: list[RelationshipEdge] = Field(default_factory=list)
    changes: list[RelationshipChange] = Field(default_factory=list)
    unknown: list[RelationshipEdge] = Field(default_factory=list)
    """Relationships of characters neither the project nor the design has: dropped."""
    already_there: list[AlreadyThere] = Field(default_factory=list)
    """Characters and relationships not proposed again: a pending proposal says the same already."""
    total: int | None = None
    message: str = ""


class StructureUpdate(CamelModel):
    """`structure_update` (Req 5.3): the outline the Planner proposes, with the plot loops it weaves in."""

    sections: list[OutlineSection]
    plot_loops: list[PlotLoopState] = Field(default_factory=list)
    proposed_plot_loops: list[ProposedPlotLoop] = Field(default_factory=list)
    """The new plot loops (伏笔) the outline sets up, each a pending `plot_loop` proposal (`proposalId`) unless the
    project or a pending proposal has one of that title already (`existingId`)."""


class IssueReport(CamelModel):
    """`issue_report` (Req 6.3): the ConsistencyAgent's findings, each with its place in the text."""

    issues: list[ConsistencyIssue]
    errors: int
    warnings: int
    summary: str


class CharacterDesigned(CamelModel):
    """`character_design`: the characters the Character agent designed."""

    characters: list[CharacterSketch]


class KnowledgeUpdate(CamelModel):
    """`knowledge_update`: world building's setting proposed as a world note (`proposalId`; a run recorded before
    proposals existed saved it, `noteId`). It reaches the project and the index when the writer accepts it."""

    note_id: str | None = None
    proposal_id: str | None = None
    already_there: AlreadyThere | None = None
    """The world note or pending proposal with the same text: this setting was not filed again."""
    title: str
    chars: int


class ChainSummary(CamelModel):
    """`chain_summary` (Req 13.4): every step's output; with `chainContext`, a later request can continue it."""

    workflow: WorkflowKind
    steps: list[ChainStepOutput]
    completed: bool
    chain_context: ChainContext


WRITING_EVENT_PAYLOADS: dict[str, type[BaseModel]] = {
    "intent_recognized": IntentRecognized,
    "thought_log": WritingThought,
    "workflow_preprocessing": PreprocessingStarted,
    "preprocessing_task": TaskTiming,
    "agent_started": AgentStarted,
    "content": ContentChunk,
    "processing_check": ProcessingCheck,
    "check_result": CheckResult,
    "relationship_update": RelationshipUpdate,
    "structure_update": StructureUpdate,
    "issue_report": IssueReport,
    "character_design": CharacterDesigned,
    "knowledge_update": KnowledgeUpdate,
    "chain_summary": ChainSummary,
    **HUMAN_INPUT_EVENTS,
    "error": ErrorInfo,
    "done": RunEnd,
}

WRITING_EVENTS = EventCatalog(payloads=WRITING_EVENT_PAYLOADS, terminal="done")
