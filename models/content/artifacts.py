"""What the content-creation agents produce (seed 001's node outputs): the brief, the evidence (by reference), the
body's outline, the reference images' measurements, the layout, the image plans, the post's text, the review and
its quality scores. Each is written by one agent only (`models.content.agents.OWNED_FIELDS`)."""

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from models.base import CamelModel

Platform = Literal["xiaohongshu", "weibo", "wechat", "douyin"]
PLATFORM_LABELS: dict[str, str] = {"xiaohongshu": "小红书", "weibo": "微博", "wechat": "微信公众号", "douyin": "抖音"}
LayoutPreference = Literal["cover_first", "alternating", "grid"]
BODY_LENGTH: dict[str, tuple[int, int]] = {
    "xiaohongshu": (150, 1000),
    "weibo": (60, 2000),
    "wechat": (500, 6000),
    "douyin": (40, 500),
}
"""Each platform's body length range, in characters: what the writer aims for and the review measures."""
TITLE_LIMIT: dict[str, int] = {"xiaohongshu": 20, "weibo": 40, "wechat": 64, "douyin": 30}
HASHTAG_PLATFORMS = frozenset({"xiaohongshu", "weibo", "douyin"})
"""Platforms whose posts carry hashtags."""
HASHTAG_COUNT = (3, 5)
"""How many hashtags a post on a `HASHTAG_PLATFORMS` platform carries: the writer's aim and the review's check (a
house rule, well inside what the platforms accept: a few precise tags read better than a wall of them)."""
HEX_COLOUR = r"^#[0-9a-f]{6}$"


class CreativeBrief(CamelModel):
    """brief_compiler_agent's output: what the post is for, for whom, and what it must say."""

    topic: str = Field(min_length=1, max_length=500)
    platform: Platform
    audience: str = Field(min_length=1, max_length=200)
    tone: str = Field(min_length=1, max_length=100)
    key_messages: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1, max_length=6)
    call_to_action: str = Field(default="", max_length=200)
    assumptions: list[str] = Field(default_factory=list, max_length=6)
    """What the brief assumed where the user said nothing (an unanswered or capped clarification)."""


class EvidenceItem(CamelModel):
    """One claim the post may use, with where it came from."""

    claim: str = Field(max_length=400)
    source: str = Field(max_length=200)
    """A note's id (`note-2`), `brief`, or `model` (the LLM's own knowledge, to be checked)."""
    kind: Literal["statistic", "fact", "quote", "tip"] = "fact"


class EvidencePack(CamelModel):
    """research_evidence_agent's evidence, by reference (ARCHITECTURE rule 4): the items are in the blob store as
    JSON; the state keeps the reference, the count and a few highlights."""

    ref: str
    """`blob:evidence/<sha256>.json`: the whole list of `EvidenceItem`s."""
    count: int
    highlights: list[str] = Field(default_factory=list, max_length=5)
    from_notes: int = 0
    """How many items came from the user's own evidence notes."""


class BodyBlock(CamelModel):
    """research_evidence_agent's outline of the body: one section and the points it makes."""

    id: str = Field(pattern=r"^b[0-9]{1,2}$")
    heading: str = Field(max_length=80)
    points: list[str] = Field(min_length=1, max_length=6)


class ReferenceAnalysis(CamelModel):
    """reference_intelligence_agent's measurements of one reference image, from its pixels."""

    image: str
    """The reference's `blob:` reference."""
    width: int
    height: int
    aspect_ratio: float
    palette: list[str] = Field(max_length=8)
    """Dominant colours, most frequent first, as `#rrggbb`."""
    palette_shares: list[float] = Field(max_length=8)
    """Each palette colour's share of the pixels."""
    brightness: float
    """Mean luminance, 0 (black) to 1 (white)."""
    contrast: float
    """Standard deviation of luminance, 0..~0.5."""
    saturation: float
    """Mean HSV saturation, 0..1."""
    colour_temperature: Literal["warm", "cool", "neutral"]
    composition: str
    """Where the visual weight sits: `centered`, `rule_of_thirds`, `left_weighted`, ... (from edge energy)."""
    focus_point: tuple[float, float]
    """Centre of the edge energy, as fractions of width and height."""
    symmetry: float
    """Left-right mirror similarity, 0..1."""
    description: str = ""
    """The measurements in one sentence, for the prompt of the agents after it."""


class LayoutSlot(CamelModel):
    """One place in the post: a body block (`block_id`), or an image slot (`image_slot`). An image is not bound to a
    paragraph (seed 001 removed `paragraphImageBindings`): its place in the order is all the layout says."""

    kind: Literal["text", "image"]
    block_id: str | None = None
    """A text slot's block."""
    image_slot: str | None = None
    """`cover`, `img1`, ...: the image plan that fills it has the same `slot`."""


class LayoutSpec(CamelModel):
    """layout_planner_agent's output: the order of text and images in the post."""

    layout: LayoutPreference
    slots: list[LayoutSlot] = Field(min_length=1, max_length=30)
    image_count: int = Field(ge=1, le=9)
    aspect_ratio: str = "3:4"
    rationale: str = ""


class ImagePlan(CamelModel):
    """image_planner_agent's plan for one image: what to draw, for which slot, at what size."""

    plan_id: str = Field(pattern=r"^p[0-9]{1,2}$")
    slot: str
    prompt: str = Field(max_length=800)
    width: int = Field(ge=256, le=1536)
    height: int = Field(ge=256, le=1536)
    seed: int = Field(ge=0)
    style: str | None = None
    """A style family the renderer knows (`cyberpunk`, `watercolor`, `ink`, `oil`), chosen to match the references."""


class ContentBlock(CamelModel):
    """One section of the post's text."""

    id: str
    heading: str = ""
    text: str = Field(max_length=4000)


class GeneratedContent(CamelModel):
    """writer_agent's output: the post's title, body and hashtags."""

    title: str = Field(max_length=120)
    body: str = Field(max_length=20_000)
    blocks: list[ContentBlock] = Field(default_factory=list, max_length=30)
    hashtags: list[str] = Field(default_factory=list, max_length=12)


class QualityDimension(StrEnum):
    """The review's five dimensions (seed 001 质量回退逻辑)."""

    INFO_DENSITY = "infoDensity"
    TEXT_IMAGE_ALIGNMENT = "textImageAlignment"
    STYLE_CONSISTENCY = "styleConsistency"
    READABILITY = "readability"
    PLATFORM_FIT = "platformFit"


DIMENSION_LABELS: dict[QualityDimension, str] = {
    QualityDimension.INFO_DENSITY: "信息密度",
    QualityDimension.TEXT_IMAGE_ALIGNMENT: "图文匹配",
    QualityDimension.STYLE_CONSISTENCY: "风格一致性",
    QualityDimension.READABILITY: "可读性",
    QualityDimension.PLATFORM_FIT: "平台适配",
}
"""Each dimension's name as a reader sees it."""


class QualityScores(CamelModel):
    """review_agent's scores, each 0..1; a dimension below the threshold sends the run back (quality fallback)."""

    info_density: float = Field(ge=0, le=1)
    text_image_alignment: float = Field(ge=0, le=1)
    style_consistency: float = Field(ge=0, le=1)
    readability: float = Field(ge=0, le=1)
    platform_fit: float = Field(ge=0, le=1)

    def score(self, dimension: QualityDimension) -> float:
        value: float = getattr(self, _FIELD_OF[dimension])
        return value


_FIELD_OF = {
    QualityDimension.INFO_DENSITY: "info_density",
    QualityDimension.TEXT_IMAGE_ALIGNMENT: "text_image_alignment",
    QualityDimension.STYLE_CONSISTENCY: "style_consistency",
    QualityDimension.READABILITY: "readability",
    QualityDimension.PLATFORM_FIT: "platform_fit",
}


class ReviewFeedback(CamelModel):
    """review_agent's verdict: approved or not, what is wrong, and (set by the workflow) where to go back to."""

    approved: bool
    summary: str = Field(max_length=1000)
    issues: list[str] = Field(default_factory=list, max_length=12)
    findings: dict[str, str] = Field(default_factory=dict)
    """Per dimension, what was measured (`infoDensity`: "2 of 5 claims used", ...)."""


QUALITY_THRESHOLD = 0.6
"""A dimension scoring below this is low: the review is not approved and its fallback applies."""


def is_quality_approved(scores: QualityScores) -> bool:
    """Seed 001's `isQualityApproved()`: every dimension at or above the threshold."""
    return all(scores.score(dimension) >= QUALITY_THRESHOLD for dimension in QualityDimension)


class ResearchFindings(CamelModel):
    """What research produces before it is stored: every evidence item, and the body's outline."""

    items: list[EvidenceItem] = Field(max_length=40)
    body_blocks: list[BodyBlock] = Field(min_length=1, max_length=8)
    summary: str = Field(default="", max_length=500)
