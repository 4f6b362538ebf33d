"""An edit of a finished post (issue 29 item 3: rewrite a section, regenerate an image, restyle the text): the
request `POST /v1/content/runs/{id}/edits` takes, the edit as the gateway resolved it against the base's post, a
`ContentEditWorkflow`'s input and state, the section rewrite's activity request and answer, and a version as
`GET /v1/content/runs/{id}/versions` lists it.

Sections and images are numbered as the post shows them: 1-based, text sections and images counted separately.
All versions of one post share the original run's `creativeId`; version 1 is that run, each edit is one more."""

from datetime import datetime
from typing import Literal

from pydantic import Field, field_validator

from models.base import CamelModel, RequestModel
from models.content.artifacts import Platform
from models.content.events import ContentThought, ImageGenerated, ReviewResult
from models.content.options import OPTION_WORDS_CHARS, TONE_CHARS, Length
from models.content.runs import ContentPost
from models.content.state import ContentState
from models.errors import ErrorInfo
from models.events import EventCatalog, RunEnd
from models.runs import SESSION_ID_PATTERN

EDIT_ACTIONS = ("rewrite_section", "regenerate_image", "restyle")
EditAction = Literal["rewrite_section", "regenerate_image", "restyle"]
INSTRUCTION_CHARS = 500
SECTION_CHARS = 4000
"""A text section's most characters (the writer's `ContentBlock.text`)."""
MAX_NUMBER = 999
"""The largest section or image number a request may name (a post has far fewer: SECTION_NOT_FOUND)."""
MAX_VERSIONS = 50
"""The most versions one post has (the original and 49 edits): `VERSION_LIMIT_REACHED` after that."""


class PostEditBody(RequestModel):
    """`POST /v1/content/runs/{id}/edits`: one action on the post of run `id`. The action and the numbers are
    checked by the gateway against the post (EDIT_INVALID, SECTION_NOT_FOUND, IMAGE_NOT_FOUND)."""

    action: str = Field(max_length=40)
    """`rewrite_section` (with `section` and either `instruction` or the user's own `text`) or `regenerate_image`
    (with `image` and, optionally, an `instruction` added to its prompt)."""
    section: int | None = Field(default=None, ge=0, le=MAX_NUMBER)
    """The text section, 1-based as the post shows them (images not counted)."""
    image: int | None = Field(default=None, ge=0, le=MAX_NUMBER)
    """The image, 1-based as the post shows them (text sections not counted)."""
    instruction: str | None = Field(default=None, max_length=INSTRUCTION_CHARS)
    text: str | None = Field(default=None, max_length=SECTION_CHARS)
    """The section's new text, applied as it is."""
    tone: str | None = Field(default=None, max_length=TONE_CHARS)
    """`restyle`: the post's new tone in free words (轻松幽默, warm and practical)."""
    length: str | None = Field(default=None, max_length=OPTION_WORDS_CHARS)
    """`restyle`: the body's new length, `short`, `medium`, `long` or 短 / 中 / 长 (LENGTH_UNKNOWN otherwise)."""
    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)

    @field_validator("instruction", "text", "tone", "length")
    @classmethod
    def _words(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None


class PostEdit(CamelModel):
    """The edit as the gateway resolved it: the section's block or the image's plan it changes."""

    action: EditAction
    section: int | None = None
    block_id: str | None = None
    """The text section's block id; `body` when the post has one text section without blocks."""
    image: int | None = None
    plan_id: str | None = None
    instruction: str | None = None
    text: str | None = None
    tone: str | None = None
    length: Length | None = None
    """The length the user's words map to."""
    length_words: str | None = None


class EditRecord(CamelModel):
    """What an edit run is: its version of the post, the run it edits, the post's first run, and what changed."""

    version: int
    base_run_id: str
    origin_run_id: str
    edit: PostEdit
    change: str = ""
    """What changed, in a line, once the edit ran."""
    applied: bool = False
    """False when the edit could not do what it was asked (an offline rewrite that did not understand the
    instruction keeps the text and says so)."""


class ContentEditInput(CamelModel):
    """What a `ContentEditWorkflow` run needs: the base's finished state, the edit, and the image settings."""

    owner: str
    session_id: str | None = None
    base: ContentState
    record: EditRecord
    topic: str
    platform: Platform | None = None
    tone: str | None = None
    hosted_models: list[str] = Field(default_factory=list)
    direct_models: list[str] = Field(default_factory=list)
    allow_fallback: bool = True
    llm_configured: bool = False


class ContentEditState(ContentState):
    """An edit run's state: the post's new version (the base's state with the edit applied) and the edit."""

    edit: EditRecord


class SectionRewriteRequest(CamelModel):
    """`content.edit_rewrite`: one text section rewritten by an instruction (by the writer model, or offline)."""

    topic: str
    platform: Platform | None = None
    heading: str = ""
    text: str = Field(max_length=SECTION_CHARS)
    instruction: str = Field(max_length=INSTRUCTION_CHARS)
    use_llm: bool = False
    model_failed: bool = False
    """Offline because the configured model failed for good, not because none is configured (the note says which)."""


class SectionRewrite(CamelModel):
    """The rewritten section, whether the instruction was applied, and what was done (for the user)."""

    text: str = Field(max_length=SECTION_CHARS)
    applied: bool
    note: str = Field(max_length=300)
    offline: bool


class PostVersion(CamelModel):
    """One version of a post as `GET /v1/content/runs/{id}/versions` lists it."""

    run_id: str
    version: int
    action: Literal["create", "rewrite_section", "regenerate_image", "restyle"]
    change: str
    status: str
    created_at: datetime
    base_run_id: str | None = None
    applied: bool = True


EDIT_EVENTS = EventCatalog(
    payloads={
        "thought_log": ContentThought,
        "image_generated": ImageGenerated,
        "review_result": ReviewResult,
        "post_ready": ContentPost,
        "error": ErrorInfo,
        "done": RunEnd,
    },
    terminal="done",
)
"""An edit run's events: what it does (`thought_log`), the redrawn image, the review of the new version
(`review_result`), the whole post's new version (`post_ready`), and `done` last, also after an `error`."""
