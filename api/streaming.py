"""The one module that turns a run's event log into a stream, for every family: `stream_items` is the one source of
a run's events, rendered here as Server-Sent Events and by `api.routes.run_socket` as WebSocket messages (each the
JSON of SSE's `data:`, `format_json`).

The gateway reads a run without writing to it: it long-polls the run's history (which costs the run nothing) and
takes the events the run published there (the memo `events` of each workflow task, `workflows.common.event_log`)
as soon as the task that emitted them completes. Where history does not have them (events carried over from an
earlier run, a workflow task that completed without publishing, a run that closed without publishing its last
events) it asks the run's `events` query for the events after the last one it has. So a reader adds no history
events and no workflow tasks, and a run with no reader does no work for one. It follows continue-as-new. Each
event becomes `id: <seq>`, `event: <type>`, `data: <json>` (blob references made URLs); a client that reconnects
with `Last-Event-ID: n` resumes at n + 1, so it misses nothing and sees nothing twice. The stream ends after the
run's terminal event (whatever its family calls it). While nothing happens, a comment line keeps proxies from
closing the connection.
"""

import asyncio
import json
import logging
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from temporalio.api.common.v1 import Memo, WorkflowExecution
from temporalio.api.enums.v1 import EventType
from temporalio.api.workflowservice.v1 import (
    GetSystemInfoRequest,
    GetWorkflowExecutionHistoryRequest,
    GetWorkflowExecutionHistoryResponse,
)
from temporalio.client import Client, WorkflowExecutionDescription, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode

from api.blob_urls import BlobLinks
from api.errors import QUERY_TIMEOUT, temporal_unavailable, unanswered
from api.live_text import LIVE_READERS, live_sse
from models.errors import ErrorCode
from models.events import EventPage, RunEvent
from models.streaming import LivePiece
from workflows.common.event_log import EVENTS_MEMO, EVENTS_QUERY

log = logging.getLogger("api.streaming")
KEEPALIVE_SECONDS = 15.0
RECONNECT_SECONDS = 30.0
"""How long a stream tries to subscribe again after Temporal stopped answering."""
_RECONNECT_BACKOFF = (0.2, 0.5, 1.0, 2.0, 5.0)
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
STARTING_RUN_SECONDS = 10.0
"""How long a stream waits for a run the gateway has just started to exist on the server."""
_STARTING_RUN_POLL = 0.005
_LONG_POLLS: "weakref.WeakKeyDictionary[Client, bool]" = weakref.WeakKeyDictionary()
"""Per client (its server does not change): whether history long polls answer as events arrive."""
_REPOLL_SECONDS = 0.02
_LENGTH_POLL_SECONDS = 0.05
"""How often a run's history length is read on a server without history long polls (the time-skipping test server):
each read costs a describe, and a reader sees an event at most this much later."""
_CLOSED_READ_ATTEMPTS = 3
_BEFORE_FIRST_TASK = 3
"""A history this long (started, task scheduled, task started) has no completed workflow task: no events yet.
Querying it now would only make the worker answer in the middle of its first task."""
MAX_EVENT_ID = 2**53 - 1
"""The largest event id a client may resume after (`Last-Event-ID`, `?after=`): JavaScript's largest exact integer,
far beyond any run's events. A larger or non-numeric one is refused (422 `INVALID_REQUEST`) before it is parsed
further, never replayed from the start in silence."""
CLOSED_EVENTS = {
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
}
"""The history events that close a run for good (after a continue-as-new it goes on in its next run)."""


def format_json(event: RunEvent, links: BlobLinks) -> str:
    """One event's envelope as JSON text (SSE's `data:`, a WebSocket message), its blob links made URLs for the
    reader. Blocking: call it in a thread."""
    return json.dumps(links.present_event(event), ensure_ascii=False)


def format_sse(event: RunEvent, links: BlobLinks) -> str:
    """One event as SSE text, its blob links made URLs for the reader. Blocking: call it in a thread."""
    return f"id: {event.seq}\nevent: {event.type}\ndata: {format_json(event, links)}\n\n"


async def run_events(
    client: Client, run_id: str, from_offset: int = 0, *, starting: bool = False
) -> AsyncIterator[RunEvent]:
    """A run's events from `from_offset` on, ending with its terminal event (or when the run has closed).
    `starting`: the run was just started (its start may not have reached the server yet), so a run that does not
    exist yet is waited for a few seconds."""
    reader = _LogReader(client, run_id, after=from_offset - 1)
    follow = _follow_history if await serves_history_long_polls(client) else _poll_history
    async for event in follow(client, run_id, reader, starting):
        yield event


async def _follow_history(client: Client, run_id: str, reader: "_LogReader", starting: bool) -> AsyncIterator[RunEvent]:
    """Read the run's history from its start, then wait for more (a long poll), taking the published events."""
    execution = ""  # after a continue-as-new, the new run; empty: the current one
    token = b""
    found = False
    patience = asyncio.get_running_loop().time() + (STARTING_RUN_SECONDS if starting else 0)
    while True:
        request = GetWorkflowExecutionHistoryRequest(
            namespace=client.namespace,
            execution=WorkflowExecution(workflow_id=run_id, run_id=execution),
            next_page_token=token,
            wait_new_event=True,
            skip_archival=True,
        )
        try:
            page = await _read_history(client, request)
        except RPCError as err:
            if err.status != RPCStatusCode.NOT_FOUND or found or asyncio.get_running_loop().time() > patience:
                raise
            await asyncio.sleep(_STARTING_RUN_POLL)
            continue
        found = True
        task_completed = published = False
        for change in page.history.events:
            if change.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
                task_completed = True
            elif change.event_type == EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
                events = reader.published(change.workflow_properties_modified_event_attributes.upserted_memo)
                if events and events[0].seq > reader.after + 1:  # older ones are not in this history: ask for them
                    async for event in reader.read():
                        yield event
                for event in reader.take(events):
                    published = True
                    yield event
            elif change.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
                execution = change.workflow_execution_continued_as_new_event_attributes.new_execution_run_id
                token = b""
                break
            elif change.event_type in CLOSED_EVENTS:
                async for event in reader.read_closed():
                    yield event
                return
            if reader.ended:
                return
        else:
            if task_completed and not published:  # a workflow task that emitted without publishing, maybe
                async for event in reader.read():
                    yield event
            if reader.ended:
                return
            token = page.next_page_token
            if not token:  # the server ended the long poll without closing the run: ask again, after a breath
                await asyncio.sleep(_REPOLL_SECONDS)


async def _read_history(
    client: Client, request: GetWorkflowExecutionHistoryRequest
) -> GetWorkflowExecutionHistoryResponse:
    """One page of a run's history. A frontend now and then answers a long poll with CANCELLED (its own context
    cancelled, not the stream's: that one is an `asyncio.CancelledError`); like UNAVAILABLE it is transient, so
    the same page is read again after the stream's reconnect backoff, for up to `RECONNECT_SECONDS`, then the
    error goes up and ends the stream."""
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + RECONNECT_SECONDS
    attempt = 0
    while True:
        try:
            return await client.workflow_service.get_workflow_execution_history(request)
        except RPCError as err:
            if err.status != RPCStatusCode.CANCELLED or loop.time() >= give_up_at:
                raise
            log.warning(
                "reading the history of run %s: CANCELLED (%s), reading again",
                request.execution.workflow_id,
                err.message,
            )
        await asyncio.sleep(_reconnect_delay(attempt))
        attempt += 1


def _reconnect_delay(attempt: int) -> float:
    return _RECONNECT_BACKOFF[min(attempt, len(_RECONNECT_BACKOFF) - 1)]


async def _poll_history(client: Client, run_id: str, reader: "_LogReader", starting: bool) -> AsyncIterator[RunEvent]:
    """For a server without history long polls (the time-skipping test server): look at the run's history length
    every `_LENGTH_POLL_SECONDS` and query the log when it has grown."""
    known = ("", 0)  # the execution last read, and its history length then
    while not reader.ended:
        description = await _describe(client, run_id, starting)
        if description.status not in (WorkflowExecutionStatus.RUNNING, WorkflowExecutionStatus.CONTINUED_AS_NEW):
            async for event in reader.read_closed():
                yield event
            return
        now = (description.run_id, description.history_length)
        if now != known and description.history_length > _BEFORE_FIRST_TASK:  # grew, or continued as new
            async for event in reader.read():
                yield event
            if not reader.stalled:
                known = now
        await asyncio.sleep(_LENGTH_POLL_SECONDS)


async def serves_history_long_polls(client: Client) -> bool:
    """Whether the server answers a history long poll as events arrive. The time-skipping test server (the one
    that reports no version) answers it only once the run has closed."""
    known = _LONG_POLLS.get(client)
    if known is None:
        info = await client.workflow_service.get_system_info(GetSystemInfoRequest())
        known = _LONG_POLLS[client] = bool(info.server_version)
    return known


class _LogReader:
    """Reads a run's event log after the last event it has: published events from history, others through the
    `events` query."""

    def __init__(self, client: Client, run_id: str, after: int) -> None:
        self._client = client
        self._handle: WorkflowHandle[Any, Any] = client.get_workflow_handle(run_id)
        self.after = after
        self.ended = False
        self.stalled = False
        self._terminal: RunEvent | None = None
        """The terminal event, once seen, even if the client had it already."""

    async def read(self) -> AsyncIterator[RunEvent]:
        """The events after the last one read, through the query. A query no worker answers in time (the run's
        worker was killed and its successor has not picked the run up yet; the time-skipping server while a run
        continues as new) sets `stalled`: the caller asks again later."""
        more, self.stalled = True, False
        while more and not self.ended:
            try:
                page: EventPage = await self._handle.query(
                    EVENTS_QUERY, self.after, result_type=EventPage, rpc_timeout=QUERY_TIMEOUT
                )
            except RPCError as err:
                if not unanswered(err):
                    raise
                self.stalled = True
                return
            for event in self.take(page.events):
                yield event
            more = page.more

    async def read_closed(self) -> AsyncIterator[RunEvent]:
        """A closed run's last events: whatever it did not publish (the query replays it on a worker), or, for a
        client that resumes after the last event, the terminal event again, so its stream ends at once."""
        for _ in range(_CLOSED_READ_ATTEMPTS):
            async for event in self.read():
                yield event
            if not self.stalled:
                break
        if self.ended:
            return
        if self._terminal is None and self.after >= 0:
            try:
                page: EventPage = await self._handle.query(
                    EVENTS_QUERY, self.after - 1, result_type=EventPage, rpc_timeout=QUERY_TIMEOUT
                )
            except RPCError as err:
                if not unanswered(err):
                    raise
                return  # no worker to ask: the stream ends with what history had
            self._terminal = next((e for e in page.events if e.terminal and e.seq == self.after), None)
        if self._terminal is not None and self._terminal.seq <= self.after:
            self.ended = True
            yield self._terminal

    def published(self, memo: Memo) -> list[RunEvent]:
        """The events a workflow task published in its memo (none if it changed only other memo fields)."""
        payload = memo.fields.get(EVENTS_MEMO)
        if payload is None:
            return []
        events: list[RunEvent] = self._client.data_converter.payload_converter.from_payload(payload, list[RunEvent])
        return events

    def take(self, events: list[RunEvent]) -> Iterator[RunEvent]:
        """The events not read yet, up to the terminal one."""
        for event in events:
            if event.terminal:
                self._terminal = event
            if event.seq <= self.after or self.ended:
                continue
            self.after = event.seq
            self.ended = event.terminal
            yield event


async def _describe(client: Client, run_id: str, starting: bool) -> WorkflowExecutionDescription:
    patience = asyncio.get_running_loop().time() + (STARTING_RUN_SECONDS if starting else 0)
    while True:
        try:
            return await client.get_workflow_handle(run_id).describe()
        except RPCError as err:
            if err.status != RPCStatusCode.NOT_FOUND or asyncio.get_running_loop().time() > patience:
                raise
        await asyncio.sleep(_STARTING_RUN_POLL)


@dataclass(frozen=True)
class Interruption:
    """The end of a stream the gateway could not go on reading: the last event it delivered and why (the run itself
    goes on); `failed`: reading failed for another reason than Temporal being away."""

    last_event_id: int
    message: str
    failed: bool

    def body(self) -> dict[str, Any]:
        return {"code": ErrorCode.STREAM_INTERRUPTED, "message": self.message, "lastEventId": self.last_event_id}


KEEPALIVE = None
"""What `stream_items` yields after `KEEPALIVE_SECONDS` without anything to send."""
StreamItem = RunEvent | LivePiece | Interruption | None


async def stream_items(
    client: Client, run_id: str, from_offset: int = 0, *, starting: bool = False
) -> AsyncIterator[StreamItem]:
    """The one source of a run's events for every transport (SSE, WebSocket): its events from `from_offset` on,
    `KEEPALIVE` while nothing happens, and an `Interruption` last when the run could not be read to its end. When
    Temporal cannot be reached mid-stream, it subscribes again from its last event for up to `RECONNECT_SECONDS`,
    then ends with an interruption naming the last event id, so the client knows to resume later from there. Any
    other failure to read the run is logged and ends it the same way: a client never sees a stream cut mid-way.
    Among the events come the agents' `LivePiece`s this gateway receives for the run while the stream is open
    (`api.live_text`)."""
    queue: asyncio.Queue[RunEvent | LivePiece | Interruption | None] = asyncio.Queue()

    async def pump() -> None:
        offset, attempt, give_up_at = from_offset, 0, None
        loop = asyncio.get_running_loop()
        try:
            while True:
                try:
                    async for event in run_events(client, run_id, offset, starting=starting):
                        offset, attempt, give_up_at = event.seq + 1, 0, None
                        await queue.put(event)
                    return
                except Exception as err:
                    if not temporal_unavailable(err):
                        log.exception("the stream of run %s stopped after event %d", run_id, offset - 1)
                        await queue.put(Interruption(offset - 1, STREAM_FAILED, failed=True))
                        return
                    give_up_at = give_up_at or loop.time() + RECONNECT_SECONDS
                    if loop.time() >= give_up_at:
                        await queue.put(Interruption(offset - 1, TEMPORAL_AWAY, failed=False))
                        return
                await asyncio.sleep(_reconnect_delay(attempt))
                attempt += 1
        finally:
            await queue.put(None)

    task = asyncio.create_task(pump())
    ended = False
    try:
        with LIVE_READERS.reading(run_id, queue):
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), timeout=KEEPALIVE_SECONDS)
                except TimeoutError:
                    yield KEEPALIVE
                    continue
                if item is None:
                    break
                if ended and isinstance(item, LivePiece):  # a late post: the terminal event stays the last
                    continue
                ended = ended or (isinstance(item, RunEvent) and item.terminal)
                yield item
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def sse_stream(
    client: Client, run_id: str, links: BlobLinks, from_offset: int = 0, *, starting: bool = False
) -> AsyncIterator[str]:
    """The run's events as SSE text (see `stream_items`): an interruption is an `error` event (`STREAM_INTERRUPTED`,
    naming the last event id, to resume with `Last-Event-ID`), a keepalive a comment line."""
    async for item in stream_items(client, run_id, from_offset, starting=starting):
        if item is KEEPALIVE:
            yield ": keepalive\n\n"
        elif isinstance(item, Interruption):
            yield interrupted_sse(item.last_event_id, item.message)
        elif isinstance(item, LivePiece):
            yield live_sse(item)
        else:
            yield await asyncio.to_thread(format_sse, item, links)


TEMPORAL_AWAY = "事件流中断：工作流服务暂时不可用，请稍后从最后的事件 id 继续（Last-Event-ID 或 ?after=）"
STREAM_FAILED = "事件流中断：读取运行事件失败，请稍后从最后的事件 id 继续（Last-Event-ID 或 ?after=）"


def interrupted_sse(last_event_id: int, message: str) -> str:
    """The `error` event that ends a stream the gateway could not go on reading (no `id:`: it is not one of the
    run's); the run itself goes on."""
    data = Interruption(last_event_id, message, failed=False).body()
    return f"event: error\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
