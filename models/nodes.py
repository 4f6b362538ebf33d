"""Typed activity specs: the one place that names an activity together with its input and result types.

The worker registers an activity under `spec.name` (`spec.defn` checks the method's types statically), and a
workflow calls it through the same spec, so strict mypy rejects sending one node's request to another node.
Names carry their family: `image.planner`, `writing.preprocess`, ...
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel
from temporalio import activity

InputT = TypeVar("InputT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)
SelfT = TypeVar("SelfT")


@dataclass(frozen=True)
class ActivitySpec(Generic[InputT, ResultT]):
    """An activity's registered name, its single input model and its result model."""

    name: str
    input: type[InputT]
    result: type[ResultT]

    def __post_init__(self) -> None:
        family, _, node = self.name.partition(".")
        if not (family and node):
            raise ValueError(f"activity name {self.name!r} must be '<family>.<node>'")

    @property
    def family(self) -> str:
        return self.name.partition(".")[0]

    @property
    def node(self) -> str:
        return self.name.partition(".")[2]

    def defn(
        self, method: Callable[[SelfT, InputT], Awaitable[ResultT]]
    ) -> Callable[[SelfT, InputT], Awaitable[ResultT]]:
        """Register an activity method under this spec's name; mypy checks its input and result types."""
        decorated: Callable[[SelfT, InputT], Awaitable[ResultT]] = activity.defn(name=self.name)(method)
        return decorated
