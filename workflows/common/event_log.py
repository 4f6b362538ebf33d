"""A run's progress log: typed `RunEvent`s kept in the workflow, published in its history, and answered by a query
(ARCHITECTURE rule 6).

The log lives in the workflow's memory and survives worker restarts by replay. An event's `seq` is its position in
the log, used as the SSE `id:`. Events reach readers two ways:

- **published**: `publish()` writes the events emitted since the last call into the run's memo (`events`), one
  history event in the workflow task that emitted them. The gateway long-polls the run's history and reads them
  there as soon as that task completes (`api.streaming`): no query, no work on a worker, nothing for a run with no
  reader. The run machinery publishes before every wait that ends a workflow task: a non-local activity
  (`GraphRun.call`), a queued run's wait for its turn, a question to a person (`HumanInput.ask`), and the end of
  the run (`seal()`, in the same task that closes it: no closed-workflow query, which would replay the run).
- **queried**: the `events` query answers the events after a cursor, which covers what history does not: events
  carried over from an earlier run, a workflow on a server without history long polls (the time-skipping test
  server), or events emitted but not yet published.

Across continue-as-new the log carries its last `keep_last` events into the next run (`carry_over`), so `seq`
goes on where it stopped and a client resuming with `Last-Event-ID` neither repeats nor skips an id.
"""

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from pydantic import BaseModel
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.events import CarriedEvents, EventCatalog, EventPage, RunEvent

EVENTS_QUERY = "events"
EVENTS_MEMO = "events"
CARRIED_EVENTS = 200
"""Events a log keeps across continue-as-new; a client further behind resumes at the oldest one kept."""
PAGE_EVENTS = 500
"""Most events one query answers with; the reader asks again for the rest."""
PUBLISH_EVENTS = 100
"""Most events one memo upsert carries (each stays far below Temporal's 2 MB memo limit); more make several."""
MEMO_WARN_BYTES = 256 * 1024
"""The memo size above which the embedded Temporal server logs a warning (its default, 2 KB, is one busy task)."""


class EventLog:
    """Appends a family's declared events to the run's log, numbered from where an earlier run stopped."""

    def __init__(self, catalog: EventCatalog, carried: CarriedEvents | None = None) -> None:
        self.catalog = catalog
        self._events: list[RunEvent] = list(carried.events) if carried else []
        self._first_seq = carried.first_seq if carried else 0
        self._published = len(self._events)
        """How many events of `_events` have been published (carried events were published by an earlier run)."""
        workflow.set_query_handler(EVENTS_QUERY, self._page)

    @property
    def next_seq(self) -> int:
        return self._first_seq + len(self._events)

    def emit(self, type: str, node: str, payload: BaseModel) -> RunEvent:
        """Append one event; its type must be declared in the family's catalog with this payload model."""
        self.catalog.check(type, payload)
        event = RunEvent(
            seq=self.next_seq,
            type=type,
            node=node,
            data=payload.model_dump(mode="json", by_alias=True, exclude_none=True),
            ts=workflow.now(),
            terminal=type == self.catalog.terminal,
        )
        self._events.append(event)
        return event

    def publish(self) -> None:
        """Write the events emitted since the last call into the run's history (memo `events`); nothing when
        there are none. Call it before the workflow waits (the end of its workflow task) and as the run ends."""
        for start in range(self._published, len(self._events), PUBLISH_EVENTS):
            workflow.upsert_memo({EVENTS_MEMO: self._events[start : start + PUBLISH_EVENTS]})
        self._published = len(self._events)

    def carry_over(self, keep_last: int = CARRIED_EVENTS) -> CarriedEvents:
        """The log's tail for the next run of a workflow that continues-as-new."""
        kept = self._events[-keep_last:] if keep_last else []
        return CarriedEvents(first_seq=self.next_seq - len(kept), events=kept)

    async def continue_as_new(self, build_args: Callable[[CarriedEvents], Sequence[Any]]) -> NoReturn:
        """Continue-as-new once every handler has finished, carrying the log's tail to the next run."""
        await workflow.wait_condition(workflow.all_handlers_finished)
        workflow.continue_as_new(args=build_args(self.carry_over()))

    def _page(self, after: int) -> EventPage:
        """The events with `seq` > `after` (from the oldest kept one when `after` is older), at most a page."""
        start = max(after + 1 - self._first_seq, 0)
        events = self._events[start : start + PAGE_EVENTS]
        return EventPage(events=events, more=start + PAGE_EVENTS < len(self._events))
