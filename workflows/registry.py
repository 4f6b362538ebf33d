"""The registered workflows of every family: class, family (hence task queue), input and state models, events
and declared graph. The worker registers what is listed here; the gateway starts, lists and describes it."""

from collections.abc import Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from models.events import EventCatalog
from models.image.events import IMAGE_EVENTS
from models.image.requests import ImageRunInput
from models.image.runs import SessionSnapshot
from models.image.state import ImageAgentState
from workflows.common.graph import Graph
from workflows.image.graph import GRAPH as IMAGE_AGENT_GRAPH
from workflows.image.session import ImageSessionWorkflow
from workflows.image.workflow import ImageAgentWorkflow


@dataclass(frozen=True)
class RegisteredWorkflow:
    """One workflow type as the platform knows it."""

    workflow: type
    family: str
    description: str
    state_model: type[BaseModel]
    """What its `state` query returns (served typed by `GET /v1/runs/{id}`)."""
    events: EventCatalog | None
    """The events it streams; None for a workflow without a stream (a session)."""
    input_model: type[BaseModel] | None = None
    """What `POST /v1/runs` validates `input` against; None when the workflow is not started that way."""
    graph: Graph | None = None
    human_input: bool = False
    """Whether it may ask a person and wait (`workflows.common.human_input`): it answers `POST /v1/runs/{id}/input`."""

    @property
    def name(self) -> str:
        return self.workflow.__name__

    @property
    def startable(self) -> bool:
        return self.input_model is not None


class Registry:
    """The workflows one worker runs and one gateway serves, by name and by family."""

    def __init__(self, workflows: list[RegisteredWorkflow]) -> None:
        self._by_name = {entry.name: entry for entry in workflows}
        if len(self._by_name) != len(workflows):
            raise ValueError("two registered workflows share a name")

    def __iter__(self) -> Iterator[RegisteredWorkflow]:
        return iter(self._by_name.values())

    def get(self, name: str) -> RegisteredWorkflow | None:
        return self._by_name.get(name)

    def families(self) -> list[str]:
        return sorted({entry.family for entry in self._by_name.values()})

    def of_family(self, family: str) -> list[RegisteredWorkflow]:
        return [entry for entry in self._by_name.values() if entry.family == family]


IMAGE_AGENT = RegisteredWorkflow(
    workflow=ImageAgentWorkflow,
    family="image",
    description="AiVista image agent (seeds 000, 004): one turn, Validate → Planner → RAG → Executor → Critic → GenUI",
    state_model=ImageAgentState,
    events=IMAGE_EVENTS,
    input_model=ImageRunInput,
    graph=IMAGE_AGENT_GRAPH,
)
IMAGE_SESSION = RegisteredWorkflow(
    workflow=ImageSessionWorkflow,
    family="image",
    description="An image-agent session: its turns one at a time, its last 50 messages and last image",
    state_model=SessionSnapshot,
    events=None,
)

REGISTRY = Registry([IMAGE_AGENT, IMAGE_SESSION])
