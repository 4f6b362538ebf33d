"""A content run's state: seed 001's 20 fields (状态列表（精简后）) as one model, and the run's bookkeeping beside
them (its place in the graph, the Supervisor's decisions, precondition corrections, which node wrote what).
Large parts travel by reference: the evidence as a blob, the images as blob keys."""

from datetime import datetime
from typing import Literal

from pydantic import Field

from models.base import CamelModel
from models.blobs import BlobLink
from models.content.agents import AgentName, SupervisorDecision
from models.content.artifacts import (
    BodyBlock,
    CreativeBrief,
    EvidencePack,
    GeneratedContent,
    ImagePlan,
    LayoutPreference,
    LayoutSpec,
    QualityDimension,
    QualityScores,
    ReferenceAnalysis,
    ReviewFeedback,
)
from models.errors import ErrorInfo
from models.runs import GraphPosition

MESSAGE_CHARS = 1000

EndReason = Literal[
    "approved",
    "supervisor_end",
    "max_iterations",
    "clarification_expired",
    "cannot_improve",
    "edit_not_approved",
]


class ContentMessage(CamelModel):
    """One entry of the run's message history: who said what (each at most `MESSAGE_CHARS` characters)."""

    role: Literal["user", "supervisor", "agent", "tool", "clarification"]
    name: str
    content: str = Field(max_length=MESSAGE_CHARS)


class RouteRecord(CamelModel):
    """One pass through `routeFromSupervisor()`: what the Supervisor decided and where the run went."""

    iteration: int
    decision: SupervisorDecision | None
    routed_to: str
    rule: Literal["no_decision", "end", "end_refused", "precondition", "decision", "max_iterations", "cannot_improve"]
    reason: str = ""


class FieldWrite(CamelModel):
    """Which state fields a node changed (held against `OWNED_FIELDS` by the tests)."""

    node: str
    fields: list[str]
    iteration: int


class PendingFallback(CamelModel):
    """A quality fallback taken and not yet judged: the dimension, its score then, the agent sent back to, and
    the iteration it was sent in (`workflows.content.fallbacks` judges it once the agent or the review ran)."""

    dimension: QualityDimension
    score: float
    agent: AgentName
    iteration: int


class ContentMetadata(GraphPosition):
    """The run's bookkeeping: its place in the graph, its routes, corrections and writes."""

    start_time: datetime
    routes: list[RouteRecord] = Field(default_factory=list)
    precondition_corrections: dict[str, int] = Field(default_factory=dict)
    """Per target node the Supervisor chose without its precondition: how often it was corrected."""
    field_writes: list[FieldWrite] = Field(default_factory=list)
    written_at: dict[str, int] = Field(default_factory=dict)
    """Per state field, the iteration that last wrote it (what is stale is computed from it)."""
    fallbacks_tried: dict[str, int] = Field(default_factory=dict)
    ran_at: dict[str, int] = Field(default_factory=dict)
    """Per agent, the iteration it last returned its output, changed or not (an output that came back the same is
    not stale: the agent is not asked again for it)."""
    fallback_pending: PendingFallback | None = None
    cannot_improve: dict[str, str] = Field(default_factory=dict)
    """Per quality dimension whose fallback changed nothing (same output, or the same failing score): why, for the
    user; its fallback is not taken again."""
    activity_calls: int = 0
    end_reason: EndReason | None = None
    end_message: str | None = None
    degraded: list[str] = Field(default_factory=list)
    """Agents whose LLM failed and whose offline version answered instead."""
    evidence_notes_ref: str | None = None
    """The `blob:` reference of the user's notes the post was made from (a new post that starts from this one
    reads them again)."""
    started_from: str | None = None
    """The earlier post (run id) this one started from (`fromRun`): its notes, references, platform and tone."""


class ContentState(CamelModel):
    """Seed 001's state, one field each (camelCase on the wire), plus `metadata` and `error`."""

    # LangGraph 核心
    messages: list[ContentMessage] = Field(default_factory=list)
    # 节点输出
    creative_brief: CreativeBrief | None = None
    evidence_pack: EvidencePack | None = None
    body_blocks: list[BodyBlock] = Field(default_factory=list)
    reference_analyses: list[ReferenceAnalysis] = Field(default_factory=list)
    layout_spec: LayoutSpec | None = None
    image_plans: list[ImagePlan] = Field(default_factory=list)
    generated_content: GeneratedContent | None = None
    generated_image_asset_ids: dict[str, BlobLink] = Field(default_factory=dict)
    """Image plan id → the image's `blob:` reference."""
    # 审核与质量控制
    review_feedback: ReviewFeedback | None = None
    quality_scores: QualityScores | None = None
    # 输入参数
    reference_images: list[BlobLink] = Field(default_factory=list)
    layout_preference: LayoutPreference | None = None
    image_gen_provider: str = "local"
    # 流程控制
    iteration_count: int = 0
    max_iterations: int
    clarification_rounds: int = 0
    # HITL
    thread_id: str
    agent_clarification_keys: list[str] = Field(default_factory=list)
    # 系统
    creative_id: str

    metadata: ContentMetadata
    error: ErrorInfo | None = None

    @property
    def position(self) -> GraphPosition:
        return self.metadata


SEED_FIELDS = (
    "messages",
    "creative_brief",
    "evidence_pack",
    "body_blocks",
    "reference_analyses",
    "layout_spec",
    "image_plans",
    "generated_content",
    "generated_image_asset_ids",
    "review_feedback",
    "quality_scores",
    "reference_images",
    "layout_preference",
    "image_gen_provider",
    "iteration_count",
    "max_iterations",
    "clarification_rounds",
    "thread_id",
    "agent_clarification_keys",
    "creative_id",
)
"""The seed's list, in its order (20 names; `iterationCount / maxIterations` share one line of the seed)."""
