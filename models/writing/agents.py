"""The writing agents' contract (seed 002 Req 10, 11, 13, 16): an agent gets everything it needs in its request
(`AgentMetadata`: the preprocessing context, the enhanced system prompt, the chain so far) and keeps nothing
between requests; it answers with its text and, per agent, structured output the workflow turns into events."""

from enum import StrEnum
from typing import Literal

from pydantic import Field

from models.base import CamelModel, RequestModel
from models.streaming import StreamTarget
from models.writing.context import ConsistencyIssue, PreprocessingContext
from models.writing.intents import IntentResult, WorkflowKind

MAX_TEXT_CHARS = 20_000
"""The longest request text and the longest output one step carries forward in a chain."""
MAX_OPTIONS = 6
MAX_OPTION_TITLE_CHARS = 1000
"""Far longer than any option's title; bounded so a chain context sent back with a chat has a largest size."""


class AgentName(StrEnum):
    """Seed 002's agents; each is one activity, `writing.<value>`."""

    WRITER = "writer"
    CHARACTER = "character"
    WORLD_BUILDER = "world_builder"
    PLANNER = "planner"
    CONSISTENCY = "consistency"
    BRAINSTORM = "brainstorm"
    SIMPLE = "simple"
    """SimpleAgentWorkflow's agents: chat, names, summaries, entity extraction (by the request's intent)."""


class BrainstormOption(CamelModel):
    """One direction the Brainstorm agent offers; the writer picks one by `id`."""

    id: str = Field(min_length=1, max_length=64)
    title: str = Field(max_length=MAX_OPTION_TITLE_CHARS)
    summary: str = Field(max_length=MAX_TEXT_CHARS)


class ChainStepOutput(CamelModel):
    """What one chain step produced, carried to the next as chain context (Req 13.2)."""

    agent: AgentName
    text: str = Field(max_length=MAX_TEXT_CHARS)
    options: list[BrainstormOption] = Field(default_factory=list, max_length=MAX_OPTIONS)


class ChainContext(RequestModel):
    """Seed 002 `ChainExecutionContext` / `metadata.chainContext`: a chain's steps so far and the writer's choice.

    A chain run carries it in its state and its `chain_summary`; a chat request that sends it back continues
    that chain at its next step (Req 14.6–14.7), e.g. after nobody chose before the deadline."""

    workflow: WorkflowKind
    steps: list[ChainStepOutput] = Field(default_factory=list, max_length=4)
    selection: str | None = Field(default=None, max_length=MAX_TEXT_CHARS)
    """The writer's choice at the chain's interaction point: an option's id or their own words."""
    request: str | None = Field(default=None, max_length=MAX_TEXT_CHARS)
    """The request that started the chain: a continued chain works on it (its retrieval, its agents), not on the
    later request's text (often only the writer's choice, e.g. "C"). None in a context saved before it was kept."""


class AgentMetadata(CamelModel):
    """Seed 002 `ChatRequest.metadata`: what the workflow prepared for the agent (Req 11)."""

    preprocessing_context: PreprocessingContext | None = None
    """None: the agent retrieves from the project itself (Req 10.2, 11.4)."""
    enhanced_system_prompt: str | None = None
    """The agent's system prompt with the active skills injected (Req 11.5); None: the agent's base prompt."""
    skills: list[str] = Field(default_factory=list)
    chain_context: ChainContext | None = None


class AgentRequest(CamelModel):
    """One agent call: the writer's words, their project, the routed intent and the prepared metadata."""

    agent: AgentName
    owner: str
    project_id: str
    text: str = Field(max_length=MAX_TEXT_CHARS)
    intent: IntentResult
    workflow: WorkflowKind
    metadata: AgentMetadata = Field(default_factory=AgentMetadata)
    use_llm: bool = True
    stream: StreamTarget | None = None
    session_id: str | None = None
    """The conversation the request belongs to: the agent reads its recent turns (issue 28)."""


class OutlineSection(CamelModel):
    """One planned chapter or beat of an outline (the Planner's structure)."""

    position: int
    title: str
    summary: str
    plot_loops: list[str] = Field(default_factory=list)
    """Titles of the plot loops this section plants or pays off."""


class PlotLoopSketch(CamelModel):
    """A plot loop (伏笔) the Planner's outline sets up (issue 28): proposed to the project, which holds it once the
    writer accepts the proposal."""

    title: str = Field(min_length=1, description="伏笔的简短名称，如“玉佩的来历”")
    description: str = Field(default="", description="埋下了什么、打算怎样回收")
    planted_in_chapter: int | None = Field(default=None, ge=1, description="埋下它的章节号（大纲里的章节）")


class ProposedPlotLoop(PlotLoopSketch):
    """A plot loop the outline sets up, as the run proposed it."""

    proposal_id: str | None = None
    """The pending proposal it became."""
    existing_id: str | None = None
    """Not proposed because the project or a pending proposal has a plot loop of that title already: which."""


class CharacterSketch(CamelModel):
    """A character the Character agent designed or refined."""

    name: str
    role: str
    description: str
    archetype: str | None = None


class RelationshipEdge(CamelModel):
    """A relationship between two characters, by name."""

    source: str
    target: str
    kind: str
    """e.g. 师徒, 对手, 恋人, mentor, rival."""
    description: str = ""


ContextSource = Literal["preprocessing", "own_retrieval", "none"]


class AgentResult(CamelModel):
    """An agent's answer: its whole text, where its context came from, and its structured output."""

    agent: AgentName
    text: str
    offline: bool
    """True when the deterministic offline agent wrote it (no LLM configured, or the LLM failed)."""
    context_source: ContextSource
    streamed: bool = False
    """True when the text already reached the run as `content` deltas while it was written."""
    sections: list[OutlineSection] = Field(default_factory=list)
    plot_loops: list[ProposedPlotLoop] = Field(default_factory=list)
    """The new plot loops the planner's outline sets up, each proposed to the project (issue 28)."""
    characters: list[CharacterSketch] = Field(default_factory=list)
    relationships: list[RelationshipEdge] = Field(default_factory=list)
    issues: list[ConsistencyIssue] = Field(default_factory=list)
    options: list[BrainstormOption] = Field(default_factory=list, max_length=MAX_OPTIONS)
    target_chapter_id: str | None = None
    """A revision (REVISE_CHAPTER): the chapter its text is a proposed new version of; the project is unchanged
    until the writer applies it."""
    target_chapter_position: int | None = None
    target_chapter_title: str | None = None
