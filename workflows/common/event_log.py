"""A run's progress log: typed `RunEvent`s appended to its `WorkflowStream` (ARCHITECTURE rule 6).

The stream (temporalio.contrib.workflow_streams) keeps the events in the workflow, answers polls and queries for
the events after an offset, and survives worker restarts by replay. Every event goes to one topic and only the
workflow publishes, so an event's `seq` is exactly its stream offset: the gateway uses it as the SSE `id:`.

Across continue-as-new the log carries its stream state into the next run (`continue_as_new`), keeping the
last `keep_last` events, so `seq` goes on where it stopped and a client resuming with `Last-Event-ID` neither
repeats nor skips an id.
"""

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from pydantic import BaseModel
from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream, WorkflowStreamState

with workflow.unsafe.imports_passed_through():
    from models.events import EVENTS_TOPIC, EventCatalog, RunEvent

CARRIED_EVENTS = 200
"""Events a log keeps across continue-as-new; a client further behind resumes at the oldest one kept."""


class EventLog:
    """Appends a family's declared events to the run's stream, numbered from where an earlier run stopped."""

    def __init__(self, catalog: EventCatalog, prior_state: WorkflowStreamState | None = None) -> None:
        self._stream = WorkflowStream(prior_state)
        self._topic = self._stream.topic(EVENTS_TOPIC, type=RunEvent)
        self.catalog = catalog
        self._next_seq = prior_state.base_offset + len(prior_state.log) if prior_state else 0

    @property
    def next_seq(self) -> int:
        return self._next_seq

    def emit(self, type: str, node: str, payload: BaseModel) -> RunEvent:
        """Append one event; its type must be declared in the family's catalog with this payload model."""
        self.catalog.check(type, payload)
        event = RunEvent(
            seq=self._next_seq,
            type=type,
            node=node,
            data=payload.model_dump(mode="json", by_alias=True, exclude_none=True),
            ts=workflow.now(),
            terminal=type == self.catalog.terminal,
        )
        self._topic.publish(event)
        self._next_seq += 1
        return event

    async def continue_as_new(
        self, build_args: Callable[[WorkflowStreamState], Sequence[Any]], *, keep_last: int = CARRIED_EVENTS
    ) -> NoReturn:
        """Continue-as-new, carrying the stream (its last `keep_last` events) to the next run."""
        self._stream.truncate(max(0, self._next_seq - keep_last))
        await self._stream.continue_as_new(build_args)
