"""What preprocessing gathers for an agent (seed 002 Req 2, 11): the `PreprocessingContext` an agent reads from
its request's metadata before it would retrieve anything itself, and the parts the parallel tasks return.

Every list is bounded: the context travels in the agent's activity input and the run's history.
"""

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from models.base import CamelModel

MAX_PASSAGES = 8
MAX_PASSAGE_CHARS = 800


class PreprocessingTask(StrEnum):
    """The preprocessing tasks of seed 002's workflow table (each one activity, `writing.<value>`)."""

    RAG = "rag"
    """Hybrid retrieval (full text plus vectors) over the writer's project."""
    CHARACTER_STATES = "character_states"
    STYLE_SAMPLES = "style_samples"
    ARCHETYPES = "archetypes"
    PLOT_LOOPS = "plot_loops"
    PREFLIGHT = "preflight"


PassageKind = Literal["chapter", "character", "style_sample", "world_note", "plot_loop", "relationship"]


class IndexDocument(CamelModel):
    """One item of a project as the retrieval index sees it; chapters are cut into passages when indexed."""

    kind: PassageKind
    ref_id: str
    title: str
    text: str
    chapter_position: int | None = None
    """A chapter's number (1 for the first), so a passage can say where it is."""


class Passage(CamelModel):
    """A retrieved piece of the project: where it comes from, its text, and how it was found."""

    kind: PassageKind
    ref_id: str
    title: str
    text: str = Field(max_length=MAX_PASSAGE_CHARS)
    chapter_position: int | None = None
    start: int = 0
    """Offset of `text` in its source's text (a chapter's content)."""
    score: float
    """Reciprocal-rank fusion of the full-text and vector ranks; higher is better."""
    matched_by: list[Literal["text", "vector"]] = Field(default_factory=list)


class CharacterState(CamelModel):
    """A character as the story has it now: its description and the chapters it last appeared in."""

    character_id: str
    name: str
    description: str
    status: str | None = None
    """What the description or chapters say about it now (e.g. 已故, 失踪, 受伤), when anything."""
    last_seen_chapter: int | None = None
    mentions: int = 0
    """How many times its name occurs across the chapters."""


class StyleExcerpt(CamelModel):
    """A passage in the writer's voice: one they saved as a sample, or a chapter excerpt close to the request."""

    title: str
    text: str = Field(max_length=MAX_PASSAGE_CHARS)
    source: Literal["sample", "chapter"]


class Archetype(CamelModel):
    """A character archetype from the embedded library, with why it matched."""

    archetype_id: str
    name: str
    description: str
    traits: list[str] = Field(default_factory=list)
    score: float = 0.0


class PlotLoopState(CamelModel):
    """A plot loop (伏笔): planted, maybe paid off."""

    plot_loop_id: str
    title: str
    description: str
    status: Literal["open", "resolved"]
    planted_in_chapter: int | None = None
    resolved_in_chapter: int | None = None


Severity = Literal["error", "warning", "info"]


class TextLocation(CamelModel):
    """Where an issue is: in the draft being checked, or in one of the project's chapters; offsets in characters."""

    source: Literal["draft", "chapter"]
    chapter_id: str | None = None
    chapter_position: int | None = None
    start: int
    end: int
    excerpt: str


class ConsistencyIssue(CamelModel):
    """One problem a check found, with its place in the text."""

    kind: str
    """e.g. `dead_character_acts`, `unknown_character`, `name_variant`, `empty_chapter`, `repeated_passage`."""
    severity: Severity
    message: str
    location: TextLocation | None = None
    suggestion: str | None = None


class PreprocessingContext(CamelModel):
    """Seed 002 Req 11.1 `metadata.preprocessingContext`: what the tasks found, and what they could not get."""

    passages: list[Passage] = Field(default_factory=list)
    characters: list[CharacterState] = Field(default_factory=list)
    style_samples: list[StyleExcerpt] = Field(default_factory=list)
    archetypes: list[Archetype] = Field(default_factory=list)
    plot_loops: list[PlotLoopState] = Field(default_factory=list)
    preflight: list[ConsistencyIssue] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    """One per task that failed (Req 2.5): the run went on without its part."""


class PreprocessRequest(CamelModel):
    """Every preprocessing task's input: whose project, and what the writer asked."""

    owner: str
    project_id: str
    text: str
    entity_names: list[str] = Field(default_factory=list)
    """Names and titles the request mentions (the router's entities), which retrieval favours."""


class PreprocessPart(CamelModel):
    """What one task returns: its part of the context (the other fields stay empty) and its timing."""

    task: PreprocessingTask
    context: PreprocessingContext
    started_at: datetime
    finished_at: datetime
    elapsed_ms: float

    @property
    def items(self) -> int:
        c = self.context
        parts: tuple[list[Any], ...] = (c.passages, c.characters, c.style_samples, c.archetypes, c.plot_loops)
        return sum(len(part) for part in parts) + len(c.preflight)
