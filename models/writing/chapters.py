"""A chapter's history and the requests that change a project's chapters as a whole: the versions every write of a
chapter keeps (who or what produced each), a draft applied to a chapter, and the chapters' order."""

from datetime import datetime
from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from models.base import CamelModel, RequestModel
from models.writing.agents import AgentResult
from models.writing.projects import MAX_CHAPTER_CHARS, MAX_CHAPTER_NUMBER, MAX_NAME

MAX_RUN_ID = 200
MAX_CHAPTERS_ORDERED = 5_000
"""More chapters than a serial novel's thousand; a longer list is refused before it is compared."""
MAX_ID = 64
ItemId = Annotated[str, Field(min_length=1, max_length=MAX_ID)]

VersionSource = Literal["manual", "draft", "revision", "restore"]
"""What produced a version: the writer's own edit, a writing run's draft, a run's revision of this chapter, or a
restore of an earlier version."""


def draft_source(result: AgentResult, chapter_id: str) -> VersionSource:
    """What a run's answer is when applied to chapter `chapter_id`: a `revision` when the run rewrote that very
    chapter (its result names it as `target_chapter_id`), else a `draft`."""
    return "revision" if result.target_chapter_id == chapter_id else "draft"


class ChapterVersionInfo(CamelModel):
    """One version of a chapter, as its list shows it (without the text)."""

    number: int
    """1 for the chapter's first text; the chapter's `version` is its newest."""
    title: str
    chars: int
    source: VersionSource
    run_id: str | None
    """The writing run whose draft or revision this is."""
    restored_from: int | None
    created_at: datetime


class ChapterVersion(ChapterVersionInfo):
    """One version of a chapter with its text."""

    content: str
    summary: str = ""
    """The chapter's summary as this version made it (empty for versions kept before summaries were)."""


class ChapterDiff(CamelModel):
    """`GET .../versions/{n}/diff?against=m`: what changed from version `against` to version `number`."""

    number: int
    against: int
    diff: str
    """A unified diff, line by line; empty when both texts are the same."""


class ApplyToChapterIn(RequestModel):
    """`POST .../chapters/{chapterId}/apply`: a writing run's draft (or revision) as the chapter's new text; `text`
    is that draft as the writer edited it, or, without `runId`, a text given outright."""

    run_id: str | None = Field(default=None, min_length=1, max_length=MAX_RUN_ID)
    text: str | None = Field(default=None, max_length=MAX_CHAPTER_CHARS)
    title: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)

    @model_validator(mode="after")
    def _a_text(self) -> Self:
        if self.run_id is None and self.text is None:
            raise ValueError("give runId (the run whose draft to apply) or text")
        return self


class ApplyAsChapterIn(RequestModel):
    """`POST .../chapters/apply`: a writing run's draft as a new chapter."""

    run_id: str = Field(min_length=1, max_length=MAX_RUN_ID)
    title: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)
    position: int | None = Field(default=None, ge=1, le=MAX_CHAPTER_NUMBER)
    """Where it goes (the chapters from there on move down one); last when absent or past the end."""


class ChapterOrderIn(RequestModel):
    """`POST .../chapters/order`: every chapter of the project, once each, in their new order."""

    chapter_ids: list[ItemId] = Field(max_length=MAX_CHAPTERS_ORDERED)
