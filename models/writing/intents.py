"""What a writer asks for (seed 002's `Intent`), where in the work they are (`CreationPhase`), what the router
answers (`IntentResult`) and which workflow serves each intent (seed 002's two workflow tables)."""

from enum import StrEnum
from typing import Literal

from pydantic import Field

from models.base import CamelModel


class WritingIntent(StrEnum):
    """Every intent of seed 002's workflow tables."""

    WRITE_CONTENT = "WRITE_CONTENT"
    PLAN_CHARACTER = "PLAN_CHARACTER"
    DESIGN_RELATIONSHIP = "DESIGN_RELATIONSHIP"
    MATCH_ARCHETYPE = "MATCH_ARCHETYPE"
    PLAN_WORLD = "PLAN_WORLD"
    BRAINSTORM_IDEA = "BRAINSTORM_IDEA"
    PLAN_OUTLINE = "PLAN_OUTLINE"
    MANAGE_PLOTLOOP = "MANAGE_PLOTLOOP"
    ANALYZE_PACING = "ANALYZE_PACING"
    CHECK_CONSISTENCY = "CHECK_CONSISTENCY"
    ANALYZE_STYLE = "ANALYZE_STYLE"
    GENERAL_CHAT = "GENERAL_CHAT"
    GENERATE_NAME = "GENERATE_NAME"
    SUMMARIZE = "SUMMARIZE"
    EXTRACT_ENTITY = "EXTRACT_ENTITY"
    BRAINSTORM_AND_EXPAND = "BRAINSTORM_AND_EXPAND"
    OUTLINE_TO_CHAPTER = "OUTLINE_TO_CHAPTER"
    CHARACTER_TO_SCENE = "CHARACTER_TO_SCENE"
    REVISE_CHAPTER = "REVISE_CHAPTER"
    """Issue 28: rewrite an existing chapter (by number or title); the answer is a proposed new version of it,
    applied by the writer, never written into the project by the run."""


class CreationPhase(StrEnum):
    """Seed 002's glossary: the stage of the work a request belongs to."""

    IDEA = "IDEA"
    WORLDBUILDING = "WORLDBUILDING"
    CHARACTER = "CHARACTER"
    OUTLINE = "OUTLINE"
    WRITING = "WRITING"
    REVISION = "REVISION"


class WorkflowKind(StrEnum):
    """The workflows of seed 002's two tables: single-agent workflows with phases, and agent chains."""

    CONTENT_GENERATION = "ContentGeneration"
    CHARACTER_DESIGN = "CharacterDesign"
    WORLD_BUILDING = "WorldBuilding"
    OUTLINE_PLANNING = "OutlinePlanning"
    CONSISTENCY_CHECK = "ConsistencyCheck"
    SIMPLE_AGENT = "SimpleAgent"
    BRAINSTORM_EXPAND = "BrainstormExpand"
    OUTLINE_TO_CHAPTER = "OutlineToChapter"
    CHARACTER_TO_SCENE = "CharacterToScene"


_I = WritingIntent
WORKFLOW_FOR_INTENT: dict[WritingIntent, WorkflowKind] = {
    _I.WRITE_CONTENT: WorkflowKind.CONTENT_GENERATION,
    _I.PLAN_CHARACTER: WorkflowKind.CHARACTER_DESIGN,
    _I.DESIGN_RELATIONSHIP: WorkflowKind.CHARACTER_DESIGN,
    _I.MATCH_ARCHETYPE: WorkflowKind.CHARACTER_DESIGN,
    _I.PLAN_WORLD: WorkflowKind.WORLD_BUILDING,
    _I.BRAINSTORM_IDEA: WorkflowKind.WORLD_BUILDING,
    _I.PLAN_OUTLINE: WorkflowKind.OUTLINE_PLANNING,
    _I.MANAGE_PLOTLOOP: WorkflowKind.OUTLINE_PLANNING,
    _I.ANALYZE_PACING: WorkflowKind.OUTLINE_PLANNING,
    _I.CHECK_CONSISTENCY: WorkflowKind.CONSISTENCY_CHECK,
    _I.ANALYZE_STYLE: WorkflowKind.CONSISTENCY_CHECK,
    _I.GENERAL_CHAT: WorkflowKind.SIMPLE_AGENT,
    _I.GENERATE_NAME: WorkflowKind.SIMPLE_AGENT,
    _I.SUMMARIZE: WorkflowKind.SIMPLE_AGENT,
    _I.EXTRACT_ENTITY: WorkflowKind.SIMPLE_AGENT,
    _I.BRAINSTORM_AND_EXPAND: WorkflowKind.BRAINSTORM_EXPAND,
    _I.OUTLINE_TO_CHAPTER: WorkflowKind.OUTLINE_TO_CHAPTER,
    _I.CHARACTER_TO_SCENE: WorkflowKind.CHARACTER_TO_SCENE,
    _I.REVISE_CHAPTER: WorkflowKind.CONTENT_GENERATION,
}
"""Seed 002's tables, row by row: which workflow serves each intent (a revision is the writer's work, checked like
a draft)."""

PHASE_OF_INTENT: dict[WritingIntent, CreationPhase | None] = {
    _I.WRITE_CONTENT: CreationPhase.WRITING,
    _I.PLAN_CHARACTER: CreationPhase.CHARACTER,
    _I.DESIGN_RELATIONSHIP: CreationPhase.CHARACTER,
    _I.MATCH_ARCHETYPE: CreationPhase.CHARACTER,
    _I.PLAN_WORLD: CreationPhase.WORLDBUILDING,
    _I.BRAINSTORM_IDEA: CreationPhase.IDEA,
    _I.PLAN_OUTLINE: CreationPhase.OUTLINE,
    _I.MANAGE_PLOTLOOP: CreationPhase.OUTLINE,
    _I.ANALYZE_PACING: CreationPhase.OUTLINE,
    _I.CHECK_CONSISTENCY: CreationPhase.REVISION,
    _I.ANALYZE_STYLE: CreationPhase.REVISION,
    _I.GENERAL_CHAT: None,
    _I.GENERATE_NAME: None,
    _I.SUMMARIZE: None,
    _I.EXTRACT_ENTITY: None,
    _I.BRAINSTORM_AND_EXPAND: CreationPhase.IDEA,
    _I.OUTLINE_TO_CHAPTER: CreationPhase.WRITING,
    _I.CHARACTER_TO_SCENE: CreationPhase.WRITING,
    _I.REVISE_CHAPTER: CreationPhase.REVISION,
}
"""The phase a request of each intent belongs to; None for the utilities, which belong to any phase."""


EntityKind = Literal["chapter", "quoted", "named"]


class ExtractedEntity(CamelModel):
    """Something the request names: a chapter number, a quoted name or title, or a name the LLM found."""

    kind: EntityKind
    text: str


class IntentResult(CamelModel):
    """The router's answer for one request (seed 002: FastPath / ThinkingAgent → IntentResult)."""

    intent: WritingIntent
    confidence: float = Field(ge=0.0, le=1.0)
    phase: CreationPhase | None
    entities: list[ExtractedEntity] = Field(default_factory=list)
    source: Literal["rules", "llm", "fallback"]
    """Which path answered: the keyword fast path, the LLM, or the default when neither could."""
