"""The content-creation agents and what passes between them and the workflow: the Supervisor's JSON decision, an
agent's request and outcome (a `StatePatch` of its own fields only), a clarification it asks for, and the turns
and tool calls of the three tool loops (supervisor, research, image), each of which is one activity."""

from enum import StrEnum
from typing import Any, Final

from pydantic import Field, field_validator

from models.base import CamelModel
from models.content.artifacts import (
    BodyBlock,
    CreativeBrief,
    EvidencePack,
    GeneratedContent,
    ImagePlan,
    LayoutPreference,
    LayoutSpec,
    Platform,
    QualityDimension,
    QualityScores,
    ReferenceAnalysis,
    ReviewFeedback,
)
from models.content.options import Length
from models.streaming import StreamTarget

END: Final = "END"
"""The Supervisor's `next_agent` that ends the run."""


class AgentName(StrEnum):
    """The nodes the Supervisor can route to, by the seed's names."""

    BRIEF_COMPILER = "brief_compiler_agent"
    RESEARCH_EVIDENCE = "research_evidence_agent"
    REFERENCE_INTELLIGENCE = "reference_intelligence_agent"
    LAYOUT_PLANNER = "layout_planner_agent"
    IMAGE_PLANNER = "image_planner_agent"
    WRITER = "writer_agent"
    IMAGE = "image_agent"
    REVIEW = "review_agent"


AGENT_LABELS: dict[AgentName, str] = {
    AgentName.BRIEF_COMPILER: "Brief 编译",
    AgentName.RESEARCH_EVIDENCE: "调研取证",
    AgentName.REFERENCE_INTELLIGENCE: "参考图分析",
    AgentName.LAYOUT_PLANNER: "版式规划",
    AgentName.IMAGE_PLANNER: "配图规划",
    AgentName.WRITER: "文案撰写",
    AgentName.IMAGE: "图片生成",
    AgentName.REVIEW: "审核",
}

OWNED_FIELDS: dict[AgentName, frozenset[str]] = {
    AgentName.BRIEF_COMPILER: frozenset({"creative_brief"}),
    AgentName.RESEARCH_EVIDENCE: frozenset({"evidence_pack", "body_blocks"}),
    AgentName.REFERENCE_INTELLIGENCE: frozenset({"reference_analyses"}),
    AgentName.LAYOUT_PLANNER: frozenset({"layout_spec"}),
    AgentName.IMAGE_PLANNER: frozenset({"image_plans"}),
    AgentName.WRITER: frozenset({"generated_content"}),
    AgentName.IMAGE: frozenset({"generated_image_asset_ids"}),
    AgentName.REVIEW: frozenset({"review_feedback", "quality_scores"}),
}
"""Seed 001 状态列表: the state fields each agent writes; the workflow refuses a patch outside them."""

SEED_QUALITY_FALLBACK: dict[QualityDimension, AgentName] = {
    QualityDimension.INFO_DENSITY: AgentName.RESEARCH_EVIDENCE,
    QualityDimension.TEXT_IMAGE_ALIGNMENT: AgentName.LAYOUT_PLANNER,
    QualityDimension.STYLE_CONSISTENCY: AgentName.REFERENCE_INTELLIGENCE,
    QualityDimension.READABILITY: AgentName.IMAGE_PLANNER,
    QualityDimension.PLATFORM_FIT: AgentName.WRITER,
}
"""Seed 001 质量回退逻辑 as the seed states it: the table of runs started before `QUALITY_FALLBACK` (their
histories replay with it)."""

QUALITY_FALLBACK: dict[QualityDimension, AgentName] = SEED_QUALITY_FALLBACK | {
    QualityDimension.READABILITY: AgentName.WRITER
}
"""The agent to go back to when a dimension scores low: seed 001's table, except that readability goes to the
writer (issue 29: readability is measured on the text, which the image planner cannot change)."""


class QualityFix(CamelModel):
    """What a quality fallback asks its agent to fix: the failed dimension, its score, and what the review found
    (one sentence each), so the agent changes what was measured instead of redoing the same work."""

    dimension: QualityDimension
    score: float
    findings: list[str] = Field(default_factory=list, max_length=8)


class SupervisorDecision(CamelModel):
    """The Supervisor's JSON decision (seed 001 示例格式); the wire names are the seed's snake_case ones."""

    next_agent: str = Field(default="", alias="next_agent", max_length=64)
    """An `AgentName`, `END`, or empty (no decision: the Supervisor is asked again)."""
    guidance: str = Field(default="", alias="guidance", max_length=1000)
    context_from_previous: str = Field(default="", alias="context_from_previous", max_length=1000)
    focus_areas: list[str] = Field(default_factory=list, alias="focus_areas", max_length=8)

    @field_validator("next_agent", mode="before")
    @classmethod
    def _no_null(cls, value: Any) -> Any:
        return "" if value is None else value


class Clarification(CamelModel):
    """A question an agent needs the user to answer before it can do its work well."""

    key: str = Field(pattern=r"^[a-z_]+\.[a-z_]+$")
    """`<agent>.<topic>`, e.g. `brief.platform`: asked at most once per run (`agentClarificationKeys`)."""
    question: str = Field(max_length=300)
    options: list[tuple[str, str]] = Field(default_factory=list, max_length=8)
    """(id, label) pairs; free text is welcome when empty."""


class ClarificationAnswer(CamelModel):
    """A clarification the user answered (or that was assumed), handed to the agent that asked."""

    key: str
    question: str
    answer: str


class StatePatch(CamelModel):
    """The fields an agent wrote; None means untouched. The workflow applies only an agent's own fields."""

    creative_brief: CreativeBrief | None = None
    evidence_pack: EvidencePack | None = None
    body_blocks: list[BodyBlock] | None = None
    reference_analyses: list[ReferenceAnalysis] | None = None
    layout_spec: LayoutSpec | None = None
    image_plans: list[ImagePlan] | None = None
    generated_content: GeneratedContent | None = None
    generated_image_asset_ids: dict[str, str] | None = None
    review_feedback: ReviewFeedback | None = None
    quality_scores: QualityScores | None = None

    def written(self) -> set[str]:
        return {name for name in type(self).model_fields if getattr(self, name) is not None}


class ContentView(CamelModel):
    """What an agent may read of the run: the user's input and the other agents' outputs (small parts only;
    the evidence by reference)."""

    topic: str
    platform: Platform | None = None
    evidence_notes_ref: str | None = None
    """`blob:evidence/<sha>.json`: the user's own evidence notes, when they gave any."""
    reference_images: list[str] = Field(default_factory=list)
    layout_preference: LayoutPreference | None = None
    tone: str | None = None
    """The user's tone, in their words: the brief's tone."""
    length: Length | None = None
    """The user's body length: a third of the platform's range (`models.content.options.body_range`)."""
    creative_brief: CreativeBrief | None = None
    evidence_pack: EvidencePack | None = None
    body_blocks: list[BodyBlock] = Field(default_factory=list)
    reference_analyses: list[ReferenceAnalysis] = Field(default_factory=list)
    layout_spec: LayoutSpec | None = None
    image_plans: list[ImagePlan] = Field(default_factory=list)
    generated_content: GeneratedContent | None = None
    generated_image_asset_ids: dict[str, str] = Field(default_factory=dict)
    review_feedback: ReviewFeedback | None = None
    quality_scores: QualityScores | None = None


class AgentRequest(CamelModel):
    """One agent call: the Supervisor's guidance, what the agent may read, the user's answers to its questions."""

    agent: AgentName
    view: ContentView
    guidance: str = ""
    focus_areas: list[str] = Field(default_factory=list)
    context_from_previous: str = ""
    answers: list[ClarificationAnswer] = Field(default_factory=list)
    may_ask: bool = True
    """False once `clarificationRounds` reached its cap: the agent assumes instead of asking."""
    asked: list[str] = Field(default_factory=list)
    """Clarification keys already asked in this run (never asked twice)."""
    use_llm: bool = False
    run_id: str = ""
    fix: QualityFix | None = None
    """Set when the agent runs as a quality fallback: the dimension it owns that the review failed."""
    stream: StreamTarget | None = None
    """Where the agent streams its answer's readable text while the model writes it (None: nowhere)."""


class AgentOutcome(CamelModel):
    """What an agent did: its fields (or a question first), a sentence for the timeline, and how it ran."""

    patch: StatePatch = Field(default_factory=StatePatch)
    summary: str = Field(max_length=1000)
    clarification: Clarification | None = None
    offline: bool = True
