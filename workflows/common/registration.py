"""How a workflow is registered with the platform: `RegisteredWorkflow` (what the worker runs and the gateway
starts, lists and describes) and `Registry`, the set one worker and one gateway share."""

from collections.abc import Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from models.events import EventCatalog
from workflows.common.graph import Graph


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

    def extended(self, *workflows: RegisteredWorkflow) -> "Registry":
        """This registry plus more workflows (tests register tiny workflows of their own this way)."""
        return Registry([*self, *workflows])
