"""An agent's text on its way to the run while the LLM writes it, for every family's agents: `content_delta`
signals (`models.streaming`), the first piece at once and then in batches.

A round's first piece goes as soon as it is written, so the reader sees the first words one signal after the
model wrote them. After it a batch goes when it holds `BATCH_CHARS` characters or `BATCH_SECONDS` have passed
since the last one, so a chapter costs a few hundred signals, not thousands (each is a history event, and wakes
the run for a workflow task), and the reader still sees text every tenth of a second. Each batch is numbered
within the activity's attempt and round; the run shows a batch once and, when a retried attempt or a new round
starts streaming, marks its first piece as a restart. A new round (`restart`) voids what the earlier ones sent:
a JSON answer that came back in the repair round, or a streamed draft that differs from the answer as it was
parsed. Every batch is also a heartbeat, besides the ones a model call sends while it runs
(`activities.common.llm_calls`): a worker that died is noticed after its heartbeat timeout.

When the worker posts live text (`activities.common.live_text`: every piece to the gateways as it is written),
the readers see the words from there, and the signals are only the durable record: after the first, a batch
goes every `LIVE_BATCH_SECONDS` or `LIVE_BATCH_CHARS`, a tenth of the signals (measured: README, Model-bound
runs).
"""

import time

from temporalio import activity

from activities.common.live_text import live_text
from models.streaming import CONTENT_SIGNAL, ContentDelta, StreamTarget

BATCH_CHARS = 200
BATCH_SECONDS = 0.1
LIVE_BATCH_CHARS = 2000
LIVE_BATCH_SECONDS = 1.0


class ContentStreamer:
    """Collects text pieces and signals them to the run (the first at once, then batched); `flush()` sends what
    is left, `restart()` starts a new round."""

    def __init__(self, target: StreamTarget, agent: str) -> None:
        self._handle = activity.client().get_workflow_handle(target.workflow_id, run_id=target.run_id)
        self._live = live_text(target, agent)
        self._batch_chars, self._batch_seconds = (
            (BATCH_CHARS, BATCH_SECONDS) if self._live is None else (LIVE_BATCH_CHARS, LIVE_BATCH_SECONDS)
        )
        self._agent = agent
        self._attempt = activity.info().attempt
        self._round = 0
        self._pending: list[str] = []
        self._pending_chars = 0
        self._index = 0
        self._last_sent = time.monotonic()
        self.sent = ""
        """The text the current round has signalled so far."""
        self.streamed = False
        """Whether any round signalled text."""

    async def add(self, text: str) -> None:
        if self._live is not None:
            self._live.add(text)
        self._pending.append(text)
        self._pending_chars += len(text)
        due = time.monotonic() - self._last_sent >= self._batch_seconds
        if self._index == 0 or self._pending_chars >= self._batch_chars or due:
            await self.flush()

    async def flush(self) -> None:
        text = "".join(self._pending)
        if not text:
            return
        self._pending, self._pending_chars = [], 0
        delta = ContentDelta(agent=self._agent, attempt=self._attempt, index=self._index, text=text, round=self._round)
        await self._handle.signal(CONTENT_SIGNAL, delta)
        self._index += 1
        self.sent += text
        self.streamed = True
        self._last_sent = time.monotonic()
        activity.heartbeat(len(self.sent))

    def restart(self) -> None:
        """What comes next replaces what this round sent (and drops what it holds unsent)."""
        if self._live is not None:
            self._live.restart()
        if self._index == 0:
            self._pending, self._pending_chars = [], 0
            return
        self._round += 1
        self._pending, self._pending_chars, self._index, self.sent = [], 0, 0, ""
