"""A run's agent text as `content` events, for every family: batches an agent streams while it runs, or pieces of
its text afterwards.

An agent with an LLM streams its text into the run as `content_delta` signals (`models.streaming`: batches,
numbered per attempt and round); `AgentStream.receive` shows each batch as a `content` event, once and in order,
of the agent calls the run is taking (`taking`: one at a time, or several at once, each agent at most once), and
a new attempt or round voids the text before it (its first piece says `restart`), and a call whose model failed
for good voids its text with an empty piece that says `restart` (`discard`). A later call of an agent that
streamed before restarts too; in a run that shows one text (`one_text`: the writing family, whose chain's later
agent replaces the earlier one's text) a later call of any agent does. An answer that did not stream reaches the
events in pieces of at most `CONTENT_EVENT_CHARS` once the agent has returned (`AgentStream.show_text`), with
`offline: true` when an offline agent wrote it. An agent learns where to stream from its request (`this_run()`;
a family that streams later than its first recorded histories sends it behind `workflow.patched`).
"""

from collections.abc import Iterator
from contextlib import contextmanager

from temporalio import workflow

from workflows.common.event_log import EventLog
from workflows.common.run import GraphRun

with workflow.unsafe.imports_passed_through():
    from models.streaming import ContentChunk, ContentDelta, StreamTarget

CONTENT_EVENT_CHARS = 2000
"""A text that did not stream reaches the event stream in pieces of at most this many characters."""


def this_run() -> StreamTarget:
    """Where the running workflow's agents stream their text: to this run."""
    info = workflow.info()
    return StreamTarget(workflow_id=info.workflow_id, run_id=info.run_id)


class _Call:
    """An agent call whose `content_delta` batches the run is taking now, and the node its events name."""

    def __init__(self, agent: str, node: str) -> None:
        self.agent = agent
        self.node = node
        self.attempt = 0
        self.round = 0
        self.next_index = 0
        self.chars = 0


class AgentStream:
    """The run's agent text, streamed or not."""

    def __init__(self, events: EventLog, run: GraphRun, *, one_text: bool = True) -> None:
        self._events = events
        self._run = run
        self._one_text = one_text
        self._calls: dict[str, _Call] = {}
        self._streamed: set[str] = set()
        """The agents whose earlier calls of this run streamed text: their next call's first piece restarts."""

    @contextmanager
    def taking(self, agent: str, node: str | None = None) -> Iterator[None]:
        """Take `agent`'s batches while the block runs (its LLM call, and the offline one after it), as events of
        `node` (by default the run's current node)."""
        agent = str(agent)  # an agent name enum's value: the key a delta's plain string finds
        call = _Call(agent, node or self._run.node)
        self._calls[agent] = call
        try:
            yield
        finally:
            if call.chars > 0:
                self._streamed.add(agent)
            if self._calls.get(agent) is call:
                del self._calls[agent]

    def receive(self, delta: ContentDelta) -> None:
        """A batch of the agent's text: shown as `content`, once, in order; a new attempt, or a new round of the
        same attempt, voids the text before it."""
        call = self._calls.get(str(delta.agent))
        if call is None or (delta.attempt, delta.round) < (call.attempt, call.round):
            return
        restart = False
        if (delta.attempt, delta.round) > (call.attempt, call.round):
            restart = call.chars > 0 or self._shown_before(delta.agent)
            call.attempt, call.round, call.next_index, call.chars = delta.attempt, delta.round, 0, 0
        if delta.index != call.next_index:
            return
        call.next_index += 1
        call.chars += len(delta.text)
        chunk = ContentChunk(agent=delta.agent, text=delta.text, attempt=delta.attempt, restart=restart)
        self._events.emit("content", call.node, chunk)
        self._events.publish()

    def discard(self, agent: str) -> None:
        """The text `agent`'s current call streamed is void (its model failed for good, and the offline agent
        answers instead): an empty piece that says `restart`, so no reader keeps a text the run did not use."""
        call = self._calls.get(str(agent))
        if call is None or call.chars == 0:
            return
        call.chars = 0
        self._events.emit("content", call.node, ContentChunk(agent=call.agent, text="", restart=True))

    def show_text(self, node: str, agent: str, text: str, *, offline: bool) -> None:
        """An answer that did not stream, as `content` events in pieces (`offline`: an offline agent's)."""
        agent = str(agent)
        for start in range(0, len(text), CONTENT_EVENT_CHARS):
            piece = text[start : start + CONTENT_EVENT_CHARS]
            restart = start == 0 and self._shown_before(agent)
            chunk = ContentChunk(agent=agent, text=piece, restart=restart, offline=offline)
            self._events.emit("content", node, chunk)

    def _shown_before(self, agent: str) -> bool:
        """Whether an earlier call's text is shown, which this call's replaces."""
        return bool(self._streamed) if self._one_text else agent in self._streamed
