"""The agent's text as `content` events: batches it streams while it runs, or pieces of its text afterwards.

An agent with an LLM streams its text into the run as `content_delta` signals (batches, numbered per attempt and
round); `AgentStream.receive` shows each batch as a `content` event, once and in order, and a new attempt or round
voids the text before it (its first piece says `restart`). An answer that did not stream reaches the events in
pieces of at most `CONTENT_EVENT_CHARS` once the agent has returned (`AgentStream.show_text`), with
`offline: true` when an offline agent wrote it.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from temporalio import workflow

from workflows.common.event_log import EventLog
from workflows.common.run import GraphRun

with workflow.unsafe.imports_passed_through():
    from models.writing.agents import AgentName, ContentDelta
    from models.writing.events import ContentChunk

CONTENT_EVENT_CHARS = 2000
"""A text that did not stream reaches the event stream in pieces of at most this many characters."""


class _Call:
    """The agent call whose `content_delta` batches the run is taking now."""

    def __init__(self, agent: AgentName) -> None:
        self.agent = agent
        self.attempt = 0
        self.round = 0
        self.next_index = 0
        self.chars = 0


class AgentStream:
    """The run's agent text, streamed or not; a later agent's first piece restarts the text shown so far."""

    def __init__(self, events: EventLog, run: GraphRun) -> None:
        self._events = events
        self._run = run
        self._call: _Call | None = None
        self._streamed_before = False
        """Whether an earlier agent call of this run streamed text: the next one's first piece restarts."""

    @contextmanager
    def taking(self, agent: AgentName) -> Iterator[None]:
        """Take `agent`'s batches while the block runs (its LLM call, and the offline one after it)."""
        self._call = _Call(agent)
        try:
            yield
        finally:
            streamed = self._call is not None and self._call.chars > 0
            self._streamed_before = self._streamed_before or streamed
            self._call = None

    def receive(self, delta: ContentDelta) -> None:
        """A batch of the agent's text: shown as `content`, once, in order; a new attempt, or a new round of the
        same attempt, voids the text before it."""
        call = self._call
        if call is None or delta.agent != call.agent or (delta.attempt, delta.round) < (call.attempt, call.round):
            return
        restart = False
        if (delta.attempt, delta.round) > (call.attempt, call.round):
            restart = call.chars > 0 or self._streamed_before
            call.attempt, call.round, call.next_index, call.chars = delta.attempt, delta.round, 0, 0
        if delta.index != call.next_index:
            return
        call.next_index += 1
        call.chars += len(delta.text)
        chunk = ContentChunk(agent=delta.agent, text=delta.text, attempt=delta.attempt, restart=restart)
        self._events.emit("content", self._run.node, chunk)
        self._events.publish()

    def show_text(self, node: str, agent: AgentName, text: str, *, offline: bool) -> None:
        """An answer that did not stream, as `content` events in pieces (`offline`: an offline agent's)."""
        for start in range(0, len(text), CONTENT_EVENT_CHARS):
            piece = text[start : start + CONTENT_EVENT_CHARS]
            restart = start == 0 and self._streamed_before
            chunk = ContentChunk(agent=agent, text=piece, restart=restart, offline=offline)
            self._events.emit("content", node, chunk)
