"""A content run as the platform sees it: the request `POST /v1/content/runs` takes, the workflow's input, the
finished post `GET /v1/content/runs/{id}/post` returns, and the run's result."""

from typing import Annotated, Literal

from pydantic import Field, field_validator

from models.base import CamelModel, RequestModel
from models.blobs import BlobLink
from models.content.artifacts import LayoutPreference, Platform, QualityScores
from models.content.options import OPTION_WORDS_CHARS, TONE_CHARS, Length
from models.content.state import EndReason
from models.events import RunStatus
from models.image.requests import MAX_URL_CHARS
from models.runs import RUN_ID_PATTERN, SESSION_ID_PATTERN

ImageGenProvider = Literal["local", "qwen-image", "qwen-image-max", "qwen-image-plus", "z-image-turbo"]
"""What `imageGenProvider` may name: the local renderer or a hosted model (as the image agent's `preferredModel`)."""
MAX_REFERENCE_IMAGES = 6
MAX_EVIDENCE_NOTES = 20
NOTE_CHARS = 4000


class ContentRunRequest(RequestModel):
    """What a content run is asked to make: `input` of `POST /v1/runs` with `ContentSupervisorWorkflow`."""

    topic: str = Field(min_length=1, max_length=500)
    platform: Platform | None = None
    """Where the post goes; when not given, the brief compiler asks."""
    reference_images: list[Annotated[str, Field(max_length=MAX_URL_CHARS)]] = Field(
        default_factory=list, max_length=MAX_REFERENCE_IMAGES
    )
    """Image URLs this gateway issued (`POST /v1/blobs`)."""
    evidence: list[Annotated[str, Field(max_length=NOTE_CHARS)]] = Field(
        default_factory=list, max_length=MAX_EVIDENCE_NOTES
    )
    """The user's own notes, facts and figures for the research agent (each at most 4000 characters)."""
    layout_preference: str | None = Field(default=None, max_length=OPTION_WORDS_CHARS)
    """The layout in the user's words: an id (`cover_first`, `alternating`, `grid`) or words that name one
    (封面优先, 图文交错, 九宫格, cover first, ...; `models.content.options.LAYOUT_WORDS`)."""
    tone: str | None = Field(default=None, max_length=TONE_CHARS)
    """The post's tone in free words (轻松幽默, warm and practical): the brief's tone, what the writer follows."""
    length: str | None = Field(default=None, max_length=OPTION_WORDS_CHARS)
    """The body's length: `short`, `medium`, `long` or 短 / 中 / 长 (a third of the platform's body range)."""
    image_gen_provider: ImageGenProvider | None = None
    """Who draws the images; when not given, the deployment's default (`IMAGE_PROVIDER_DEFAULT`). A hosted model
    this deployment has no API key for is drawn by the local renderer, and the run says so."""
    allow_fallback: bool | None = None
    """Whether images of a hosted model whose quota is spent may come from the local renderer (default
    `ALLOW_IMAGE_FALLBACK`, true)."""
    max_iterations: int | None = Field(default=None, ge=1, le=60)

    @field_validator("topic")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("topic is blank")
        return value.strip()

    @field_validator("layout_preference", "tone", "length")
    @classmethod
    def _words(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None

    @field_validator("evidence")
    @classmethod
    def _notes(cls, notes: list[str]) -> list[str]:
        return [note.strip() for note in notes if note.strip()]


class ContentRunBody(ContentRunRequest):
    """`POST /v1/content/runs`: the request and, optionally, the session it belongs to and the earlier post it
    starts from."""

    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)
    from_run: str | None = Field(default=None, max_length=64, pattern=RUN_ID_PATTERN)
    """An earlier post of the caller's (its run or an edit's): the new post takes its notes, reference images,
    platform, tone and layout where the request leaves them out, and joins its session."""


class ContentRunInput(CamelModel):
    """What a `ContentSupervisorWorkflow` run needs: the request with blobs by key, and limits from settings."""

    owner: str
    topic: str
    platform: Platform | None = None
    reference_images: list[str] = Field(default_factory=list)
    """`blob:` references of the reference images."""
    evidence_notes_ref: str | None = None
    """`blob:evidence/<sha>.json`: the user's notes, stored by the gateway."""
    evidence_notes: int = 0
    layout_preference: LayoutPreference | None = None
    """The layout the user's words map to."""
    layout_words: str | None = None
    """The user's own words for the layout, as they wrote them."""
    tone: str | None = None
    length: Length | None = None
    """The length the user's words map to."""
    length_words: str | None = None
    image_gen_provider: str = "local"
    """The model named by the request or the deployment's default: `local` or a hosted model."""
    hosted_models: list[str] = Field(default_factory=list)
    """Models a task-based image API of this deployment serves (submit, poll, fetch)."""
    direct_models: list[str] = Field(default_factory=list)
    """Models a synchronous image API of this deployment serves (one call)."""
    allow_fallback: bool = True
    max_iterations: int = 20
    max_clarification_rounds: int = 2
    llm_configured: bool = False
    session_id: str | None = None
    from_run: str | None = None
    """The earlier post this one started from (`fromRun`), for the record."""
    deadline_seconds: float = 900.0
    """The run's active work; each wait for the user's answer comes on top."""
    input_timeout_seconds: float = 24 * 3600


class PostSection(CamelModel):
    """One piece of the finished post, in layout order: a text block or an image."""

    kind: str
    heading: str | None = None
    text: str | None = None
    image_url: BlobLink | None = None
    """The image's URL (a `blob:` reference inside the run, the gateway's URL outside it)."""
    slot: str | None = None


class ContentPost(CamelModel):
    """The finished post: title, sections with the images in place, hashtags, and how the run ended."""

    title: str
    opening: str = ""
    """The body's lines before its first section: the hook (offline, after the offline label)."""
    sections: list[PostSection]
    closing: str = ""
    """The body's lines after its last section: the call to action."""
    hashtags: list[str] = Field(default_factory=list)
    image_urls: list[BlobLink] = Field(default_factory=list)
    quality_scores: QualityScores | None = None
    approved: bool = False
    complete: bool
    """Whether it has its text and every planned image."""
    end_reason: EndReason | None = None
    end_message: str | None = None
    creative_id: str | None = None
    """What every version of this post shares (the original run's; an edit keeps it)."""


class ContentResult(CamelModel):
    """What a `ContentSupervisorWorkflow` run returns."""

    status: RunStatus
    post: ContentPost | None = None
    iterations: int = 0
    precondition_corrections: dict[str, int] = Field(default_factory=dict)
