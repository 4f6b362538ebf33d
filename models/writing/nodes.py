"""The writing family's activities: one input model per node and the typed `ActivitySpec` that names each one
`writing.<node>` for the worker and the workflow alike."""

from pydantic import Field

from models.base import CamelModel
from models.nodes import ActivitySpec
from models.writing.agents import AgentName, AgentRequest, AgentResult, CharacterSketch, RelationshipEdge
from models.writing.checks import CheckResult, ConsistencyCheckRequest
from models.writing.context import PreprocessingTask, PreprocessPart, PreprocessRequest
from models.writing.intents import IntentResult
from models.writing.proposals import AlreadyThere, RelationshipChange
from models.writing.sessions import TurnIn, TurnRecorded


class RouteRequest(CamelModel):
    """The router's input: what the writer asked."""

    text: str = Field(max_length=20_000)
    use_llm: bool = True
    """False after the LLM path failed: the router answers from its rules, or GENERAL_CHAT."""
    owner: str | None = None
    project_id: str | None = None
    session_id: str | None = None
    """The conversation the request belongs to: the router reads its recent turns, so a follow-up ("再紧张一点")
    goes where the previous turn went (issue 28)."""


ROUTER = ActivitySpec("writing.router", RouteRequest, IntentResult)

PREPROCESSING: dict[PreprocessingTask, ActivitySpec[PreprocessRequest, PreprocessPart]] = {
    task: ActivitySpec(f"writing.{task.value}", PreprocessRequest, PreprocessPart) for task in PreprocessingTask
}
"""One activity per preprocessing task: `writing.rag`, `writing.character_states`, ..."""

AGENTS: dict[AgentName, ActivitySpec[AgentRequest, AgentResult]] = {
    agent: ActivitySpec(f"writing.{agent.value}", AgentRequest, AgentResult) for agent in AgentName
}
"""One activity per agent: `writing.writer`, `writing.planner`, ..."""

CONSISTENCY_CHECK = ActivitySpec("writing.consistency_check", ConsistencyCheckRequest, CheckResult)

RECORD_TURN = ActivitySpec("writing.record_turn", TurnIn, TurnRecorded)
"""A finished run's turn into its session's memory (`activities.writing.memory`)."""


class RelationshipUpdateRequest(CamelModel):
    """Post-processing of a character design: merge what it says about relationships into the project's graph."""

    owner: str
    project_id: str
    characters: list[CharacterSketch] = Field(default_factory=list)
    relationships: list[RelationshipEdge] = Field(default_factory=list)
    text: str = ""
    """The design's text, where relationships are read from when the agent gave none explicitly."""


class RelationshipUpdateResult(CamelModel):
    """What the design proposes for the relationship graph (issue 28 item 2: proposals the writer accepts or
    rejects; a run recorded before proposals existed wrote `added` and `changed` directly)."""

    added: list[RelationshipEdge] = Field(default_factory=list)
    changed: list[RelationshipEdge] = Field(default_factory=list)
    skipped: list[RelationshipEdge] = Field(default_factory=list)
    """Edges the graph cannot hold (a character related to itself, names too long)."""
    unknown: list[RelationshipEdge] = Field(default_factory=list)
    """Edges naming a character neither the project nor the design has: dropped, not proposed."""
    changes: list[RelationshipChange] = Field(default_factory=list)
    """Each proposed relationship with the pair's relationship as the project has it (`before`)."""
    characters: list[str] = Field(default_factory=list)
    """The designed characters proposed for the project (its relationships' characters among them)."""
    already_there: list[AlreadyThere] = Field(default_factory=list)
    """Characters and relationships not proposed because a pending proposal of another run says the same."""
    total: int = 0


UPDATE_RELATIONSHIPS = ActivitySpec("writing.update_relationships", RelationshipUpdateRequest, RelationshipUpdateResult)


class KnowledgeUpdateRequest(CamelModel):
    """Post-processing of world building: the setting proposed as a world note of the project (indexed for
    retrieval once the writer accepts it)."""

    owner: str
    project_id: str
    title: str
    content: str


class KnowledgeUpdateResult(CamelModel):
    """The proposal the setting became (a run recorded before proposals existed saved a world note, `note_id`), or
    the world note or pending proposal with the same text (`already_there`: none is filed)."""

    note_id: str | None = None
    proposal_id: str | None = None
    already_there: AlreadyThere | None = None
    title: str
    chars: int


UPDATE_KNOWLEDGE = ActivitySpec("writing.update_knowledge", KnowledgeUpdateRequest, KnowledgeUpdateResult)
