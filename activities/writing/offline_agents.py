"""The writing agents without an LLM (none configured, or its path failed): `compose` answers any agent's request
deterministically from the writer's project and the request, labelled offline, so every workflow and chain runs
end to end. Each agent is a module of `activities.writing.offline`; this module only picks one.

Pure: no I/O, clock or randomness (the same request and chapters give the same answer); the caller does the
retrieval and passes what it found as `metadata.preprocessingContext`.
"""

from collections.abc import Callable

from activities.writing.offline.brainstorm import brainstorm
from activities.writing.offline.character import design
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.planner import plan
from activities.writing.offline.review import review
from activities.writing.offline.simple import answer
from activities.writing.offline.world import build_world
from activities.writing.offline.writer import write
from models.writing.agents import AgentName, AgentRequest, AgentResult
from models.writing.projects import Chapter

OFFLINE_AGENTS: dict[AgentName, Callable[[Grounding], AgentResult]] = {
    AgentName.WRITER: write,
    AgentName.CHARACTER: design,
    AgentName.WORLD_BUILDER: build_world,
    AgentName.PLANNER: plan,
    AgentName.CONSISTENCY: review,
    AgentName.BRAINSTORM: brainstorm,
    AgentName.SIMPLE: answer,
}


def compose(request: AgentRequest, chapters: list[Chapter]) -> AgentResult:
    """The offline answer of `request.agent` (the simple agent by `request.intent`): `offline=True`, and
    `context_source` "preprocessing" when the request carries a context, else "none" (the caller may override)."""
    return OFFLINE_AGENTS[request.agent](Grounding.of(request, chapters))
