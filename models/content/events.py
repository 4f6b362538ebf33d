"""The content run's events: each type with its payload model; `done` ends a run.

A run streams `thought_log` and a `supervisor_decision` for every pass through `routeFromSupervisor()` (with the
rule that decided it: the Supervisor's decision, a precondition correction, a refused END), `agent_started` and
`agent_finished` for every agent, `content` while an agent with a model writes its JSON answer (its readable
values as they are written, `models.streaming`), `tool_call` and `tool_result` for every tool call of a loop,
`image_generated` per image, `review_result` with the quality scores and the fallback, `user_input_required` (and
its answer) for a clarification, `post_ready` with the finished post, and `done` last, also after an `error`.
"""

from typing import Any, Literal

from pydantic import BaseModel, Field

from models.base import CamelModel
from models.blobs import BlobLink
from models.content.agents import AgentName, SupervisorDecision
from models.content.artifacts import QualityScores, ReviewFeedback
from models.content.runs import ContentPost
from models.content.turns import QualityFallback, ToolLoop
from models.errors import ErrorInfo
from models.events import EventCatalog, RunEnd
from models.human_input import HUMAN_INPUT_EVENTS
from models.streaming import ContentChunk


class ContentThought(CamelModel):
    """`thought_log`: what the run is doing, in a sentence."""

    node: str
    message: str
    level: Literal["info", "warning"] = "info"


class DecisionMade(CamelModel):
    """`supervisor_decision`: one pass through `routeFromSupervisor()`."""

    iteration: int
    decision: SupervisorDecision | None
    routed_to: str
    rule: str
    reason: str = ""
    corrected: bool = False
    """True when a missing precondition sent the run to the fallback node instead of the decision."""


class AgentStarted(CamelModel):
    """`agent_started`: an agent begins, with the Supervisor's guidance."""

    agent: AgentName
    iteration: int
    guidance: str = ""
    focus_areas: list[str] = Field(default_factory=list)


class AgentFinished(CamelModel):
    """`agent_finished`: what the agent did and which state fields it wrote."""

    agent: AgentName
    summary: str
    fields: list[str]
    offline: bool


class ToolCalled(CamelModel):
    """`tool_call`: a loop's model asked for a tool."""

    loop: ToolLoop
    call_id: str
    tool: str
    arguments: dict[str, Any]


class ToolReturned(CamelModel):
    """`tool_result`: what the tool returned (in a line)."""

    loop: ToolLoop
    call_id: str
    tool: str
    summary: str
    is_error: bool = False


class ImageGenerated(CamelModel):
    """`image_generated`: one planned image is in the blob store."""

    plan_id: str
    image_url: BlobLink


class ReviewResult(CamelModel):
    """`review_result`: the review's verdict, its scores, and the fallback its lowest dimension points to."""

    feedback: ReviewFeedback
    scores: QualityScores
    quality_approved: bool
    fallback: QualityFallback | None = None


SUPERVISOR_EVENT_PAYLOADS: dict[str, type[BaseModel]] = {
    "thought_log": ContentThought,
    "supervisor_decision": DecisionMade,
    "agent_started": AgentStarted,
    "agent_finished": AgentFinished,
    "content": ContentChunk,
    "tool_call": ToolCalled,
    "tool_result": ToolReturned,
    "image_generated": ImageGenerated,
    "review_result": ReviewResult,
    "post_ready": ContentPost,
    **HUMAN_INPUT_EVENTS,
    "error": ErrorInfo,
    "done": RunEnd,
}

SUPERVISOR_EVENTS = EventCatalog(payloads=SUPERVISOR_EVENT_PAYLOADS, terminal="done")
