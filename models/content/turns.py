"""The three tool loops of the content run (ARCHITECTURE rule 11): each LLM turn is one activity (`TurnRequest` →
`Turn`) and each tool call another (`ToolCallRequest` → `ToolCallResult`), so the Web UI shows every call and a
retried turn never repeats a tool. The workflow carries the loop's conversation between them."""

from typing import Literal

from pydantic import Field

from llm.types import Message, ToolCall, ToolResultPart
from models.base import CamelModel
from models.content.agents import (
    AgentName,
    AgentOutcome,
    ClarificationAnswer,
    ContentView,
    QualityFix,
    SupervisorDecision,
)
from models.content.artifacts import ImagePlan, QualityDimension
from models.content.state import ContentMessage
from models.hosted_tasks import SubmittedTask

ToolLoop = Literal["supervisor", "research", "image"]
GENERATE_IMAGE = "generate_image"
"""The image loop's tool: draws one planned image."""
PROMPT_CHARS = 800
ArtifactStatus = Literal["done", "missing", "stale"]


class QualityFallback(CamelModel):
    """The quality fallback table's row for the lowest dimension under the threshold."""

    dimension: QualityDimension
    score: float
    agent: AgentName


class Progress(CamelModel):
    """Where the run stands, computed by the workflow (`workflows.content.progress`) for the Supervisor: each
    agent's output done, missing or stale (older than something it depends on), and whether the run may end."""

    artifacts: dict[AgentName, ArtifactStatus]
    can_end: bool
    images_complete: bool
    review_passed: bool
    quality_fallback: QualityFallback | None = None
    iteration_count: int
    max_iterations: int
    corrections: dict[str, int] = Field(default_factory=dict)
    recent_decisions: list[str] = Field(default_factory=list, max_length=6)
    """The last routes taken (`writer_agent`, `review_agent`, ...), oldest first."""
    fallbacks_tried: dict[str, int] = Field(default_factory=dict)
    """How often each quality dimension's fallback was taken already."""


class TurnRequest(CamelModel):
    """One LLM turn of a tool loop: the loop's conversation so far and what the model may read."""

    loop: ToolLoop
    view: ContentView
    conversation: list[Message] = Field(default_factory=list)
    """This loop's turns since it started: assistant tool calls and their results."""
    progress: Progress | None = None
    """The Supervisor's loop only."""
    guidance: str = ""
    focus_areas: list[str] = Field(default_factory=list)
    answers: list[ClarificationAnswer] = Field(default_factory=list)
    tool_calls_made: int = 0
    tools_allowed: bool = True
    """False once the loop has used its tool calls: the model is asked for its answer alone."""
    use_llm: bool = False
    run_id: str = ""
    nudged_after: str | None = None
    """The image loop only: the model's answer that called no tool although images are missing; the turn sends it
    back with a nudge to call `generate_image`."""
    messages: list[ContentMessage] = Field(default_factory=list)
    """The Supervisor's loop only: the run's latest messages (what the user asked, what each agent and tool said,
    the Supervisor's own routes), at most `SUPERVISOR_MESSAGES` of them."""
    fix: QualityFix | None = None
    """The research loop only, run as a quality fallback: the failed dimension and the review's findings."""


SUPERVISOR_MESSAGES = 12
"""How many of the run's latest messages a Supervisor turn reads."""


class Turn(CamelModel):
    """A model's turn: tool calls to run, or its answer (the Supervisor's decision; research's outcome)."""

    tool_calls: list[ToolCall] = Field(default_factory=list)
    text: str = ""
    decision: SupervisorDecision | None = None
    """The Supervisor's loop: None when its answer had no decision in it."""
    unreadable: str = ""
    """The Supervisor's loop: why its answer (after the repair round) gave no decision the run can use."""
    outcome: AgentOutcome | None = None
    """The research loop's final answer: its fields."""
    offline: bool = True

    def as_message(self) -> Message:
        return Message.assistant(self.text, tuple(self.tool_calls))


class ToolCallRequest(CamelModel):
    """One tool call of a loop, with what the tool may read."""

    loop: ToolLoop
    call: ToolCall
    view: ContentView
    run_id: str = ""
    model: str | None = None
    """Image tools: the hosted model that renders (the run's `imageGenProvider`); None: the local renderer."""
    owner: str = ""
    """Image tools: the principal the image is stored for (the run's owner); empty: for nobody."""


class GeneratedImage(CamelModel):
    """What `generate_image` made: the plan it fills and the image's `blob:` reference."""

    plan_id: str
    image: str


class HostedImageFetch(CamelModel):
    """Copy a hosted model's finished image for one `generate_image` call into the blob store."""

    call: ToolCallRequest
    task: SubmittedTask
    image_url: str


def planned_image(request: ToolCallRequest) -> tuple[ImagePlan, str] | None:
    """The plan a `generate_image` call names and the prompt to draw it with (the call's own, else the plan's);
    None for any other call, which the tool answers with an error."""
    arguments = request.call.arguments
    plan = next((plan for plan in request.view.image_plans if plan.plan_id == arguments.get("plan_id")), None)
    if request.call.name != GENERATE_IMAGE or plan is None:
        return None
    return plan, str(arguments.get("prompt") or plan.prompt)[:PROMPT_CHARS]


class ToolCallResult(CamelModel):
    """What a tool returned: the text the model reads next, a line for the timeline, and (image tools) the image."""

    call_id: str
    name: str
    content: str = Field(max_length=8000)
    is_error: bool = False
    summary: str = Field(max_length=300)
    image: GeneratedImage | None = None

    def as_part(self) -> ToolResultPart:
        return ToolResultPart(call_id=self.call_id, name=self.name, content=self.content, is_error=self.is_error)
