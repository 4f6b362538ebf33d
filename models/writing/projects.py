"""A writer's project as the API shows it: the project, its chapters, characters, plot loops (伏笔), style samples,
world notes (设定) and relationships between characters (seed 002's material that every answer is grounded in),
and the request bodies that create or change them."""

from datetime import datetime
from typing import Annotated, Literal, Self

from pydantic import Field, StringConstraints, model_validator

from models.base import CamelModel, RequestModel
from models.writing.proposals import ItemOrigin

MAX_NAME = 200
MAX_CHAPTER_CHARS = 100_000
"""A long chapter is 10 000 to 20 000 characters; five times that is a mistake, not a chapter."""
MAX_DESCRIPTION_CHARS = 20_000
MAX_KIND = 100
MAX_CHAPTER_NUMBER = 100_000
"""Far past any novel's last chapter, and well inside what SQLite stores as an integer."""

PlotLoopStatus = Literal["open", "resolved"]
ChapterNumber = Annotated[int, Field(ge=1, le=MAX_CHAPTER_NUMBER)]
CharacterName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME)]
"""A character as a relationship names it (surrounding spaces dropped, so " 林舟" and "林舟" are one person)."""


class ProjectIn(RequestModel):
    """`POST /v1/writing/projects`."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    genre: str | None = Field(default=None, max_length=MAX_NAME)


class ChapterIn(RequestModel):
    """A chapter to add or the new text of one."""

    title: str = Field(min_length=1, max_length=MAX_NAME)
    content: str = Field(default="", max_length=MAX_CHAPTER_CHARS)


class CharacterIn(RequestModel):
    """A character to add or the new description of one."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    description: str = Field(default="", max_length=MAX_DESCRIPTION_CHARS)


class PlotLoopIn(RequestModel):
    """A plot loop (伏笔) to add or the new state of one. A loop still open may already name the chapter that is
    meant to resolve it."""

    title: str = Field(min_length=1, max_length=MAX_NAME)
    description: str = Field(default="", max_length=MAX_DESCRIPTION_CHARS)
    status: PlotLoopStatus = "open"
    planted_in_chapter: ChapterNumber | None = None
    resolved_in_chapter: ChapterNumber | None = None

    @model_validator(mode="after")
    def _resolved_after_planted(self) -> Self:
        planted, resolved = self.planted_in_chapter, self.resolved_in_chapter
        if planted is not None and resolved is not None and resolved < planted:
            raise ValueError("resolvedInChapter comes before plantedInChapter")
        return self


class StyleSampleIn(RequestModel):
    """A passage in the writer's voice to keep as a sample, or the new text of one."""

    title: str = Field(min_length=1, max_length=MAX_NAME)
    text: str = Field(min_length=1, max_length=MAX_DESCRIPTION_CHARS)


class WorldNoteIn(RequestModel):
    """A note on the story's world (a place, a rule of its magic, a faction), or the new text of one."""

    title: str = Field(min_length=1, max_length=MAX_NAME)
    content: str = Field(default="", max_length=MAX_DESCRIPTION_CHARS)


class RelationshipIn(RequestModel):
    """How two characters, named as the writer names them, stand to each other (e.g. 林舟 — 师徒 — 苏念). A project
    has at most one relationship per pair, whichever way round it is written."""

    source: CharacterName
    target: CharacterName
    kind: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_KIND)]
    description: str = Field(default="", max_length=MAX_DESCRIPTION_CHARS)

    @model_validator(mode="after")
    def _two_characters(self) -> Self:
        if self.source == self.target:
            raise ValueError("source and target are the same character")
        return self


class Project(CamelModel):
    """A project as the API shows it, with how many items of each kind it has."""

    project_id: str
    name: str
    genre: str | None
    created_at: datetime
    revision: int = 0
    """Goes up with every change to the project or anything in it (not with reads): what the retrieval index was
    built from, so it knows when it is stale."""
    chapters: int = 0
    characters: int = 0
    plot_loops: int = 0
    style_samples: int = 0
    world_notes: int = 0
    relationships: int = 0


class Chapter(CamelModel):
    """One chapter of a project."""

    chapter_id: str
    project_id: str
    position: int
    """1, 2, ... n in the book's order, without gaps (the chapter number a writer refers to): a new chapter comes
    last unless placed, a deleted one closes its gap, and the writer may reorder them; the chapter numbers plot loops
    name move with their chapters (a deleted chapter's become null)."""
    title: str
    content: str
    updated_at: datetime
    summary: str = ""
    """A few of the chapter's own sentences, made whenever its text changes (`stores.chapter_summaries`): what
    the planner and the consistency check read of the chapters (seed 002 Req 5.2, 11.3)."""
    version: int = 1
    """Goes up with every change to the chapter (each is kept as a `ChapterVersion` of this number): its ETag,
    which a write's `If-Match` must name. Every item of a project has one (its ETag too)."""


class Character(CamelModel):
    """One character of a project."""

    character_id: str
    project_id: str
    name: str
    description: str
    updated_at: datetime
    version: int = 1
    origin: ItemOrigin = "writer"
    """`accepted`: an agent proposed it and the writer accepted the proposal (issue 28 item 2)."""
    source_run_id: str | None = None
    """For an accepted item: the run that proposed it."""


class PlotLoop(CamelModel):
    """One plot loop of a project."""

    plot_loop_id: str
    project_id: str
    title: str
    description: str
    status: PlotLoopStatus
    planted_in_chapter: int | None
    resolved_in_chapter: int | None
    updated_at: datetime
    version: int = 1
    origin: ItemOrigin = "writer"
    """`accepted`: the planner's outline set it up and the writer accepted the proposal (issue 28)."""
    source_run_id: str | None = None
    """For an accepted plot loop: the run that proposed it."""


class StyleSample(CamelModel):
    """One style sample of a project (what preprocessing offers the writer agent as `context.StyleExcerpt`)."""

    style_sample_id: str
    project_id: str
    title: str
    text: str
    updated_at: datetime
    version: int = 1


class WorldNote(CamelModel):
    """One world note of a project."""

    world_note_id: str
    project_id: str
    title: str
    content: str
    updated_at: datetime
    version: int = 1
    origin: ItemOrigin = "writer"
    """`accepted`: an agent proposed it and the writer accepted the proposal (issue 28 item 2)."""
    source_run_id: str | None = None
    """For an accepted item: the run that proposed it."""


class Relationship(CamelModel):
    """One relationship between two characters of a project."""

    relationship_id: str
    project_id: str
    source: str
    target: str
    kind: str
    description: str
    updated_at: datetime
    version: int = 1
    origin: ItemOrigin = "writer"
    """`accepted`: an agent proposed it and the writer accepted the proposal (issue 28 item 2)."""
    source_run_id: str | None = None
    """For an accepted item: the run that proposed it."""
