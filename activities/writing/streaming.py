"""An agent's text on its way to the run while the LLM writes it: batched into `content_delta` signals.

A batch goes when it holds `BATCH_CHARS` characters or `BATCH_SECONDS` have passed since the last one, so a
chapter costs tens of signals, not thousands (each is a history event), and the reader still sees text every
quarter second. Each batch is numbered within the activity's attempt; the run shows a batch once and, when a
retried attempt starts streaming, marks its first piece as a restart. Every batch is also a heartbeat: an
activity that stops streaming is noticed after its heartbeat timeout.
"""

import time

from temporalio import activity

from models.writing.agents import CONTENT_SIGNAL, AgentName, ContentDelta, StreamTarget

BATCH_CHARS = 200
BATCH_SECONDS = 0.25


class ContentStreamer:
    """Collects text pieces and signals them to the run in batches; `flush()` sends what is left."""

    def __init__(self, target: StreamTarget, agent: AgentName) -> None:
        self._handle = activity.client().get_workflow_handle(target.workflow_id, run_id=target.run_id)
        self._agent = agent
        self._attempt = activity.info().attempt
        self._pending: list[str] = []
        self._pending_chars = 0
        self._index = 0
        self._last_sent = time.monotonic()
        self.sent_chars = 0

    async def add(self, text: str) -> None:
        self._pending.append(text)
        self._pending_chars += len(text)
        if self._pending_chars >= BATCH_CHARS or time.monotonic() - self._last_sent >= BATCH_SECONDS:
            await self.flush()

    async def flush(self) -> None:
        if not self._pending:
            return
        text = "".join(self._pending)
        self._pending, self._pending_chars = [], 0
        delta = ContentDelta(agent=self._agent, attempt=self._attempt, index=self._index, text=text)
        await self._handle.signal(CONTENT_SIGNAL, delta)
        self._index += 1
        self.sent_chars += len(text)
        self._last_sent = time.monotonic()
        activity.heartbeat(self.sent_chars)
