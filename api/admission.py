"""Admission control (seed 000 §8.2) and each principal's request rate, at the gateway.

At most `MAX_RUNS_IN_FLIGHT` runs this gateway started are open at once (50), and at most `MAX_RUNS_WAITING`
requests wait for one of those places (100), first come first served; beyond that a request is refused at once
with 429 `RUNS_BUSY` and `Retry-After`. A waiting request that streams gets `queued` events with its place (the
gateway's own, without an `id:`), then `admitted` with its run's id, then the run's events; a waiting request
that does not stream is answered once it is admitted. A place is given back when the run closes, which a small
watcher learns from the run's history (one long poll per run, nothing asked of the run).

The counts live in this gateway process: several gateways each admit their own share, and a restarted gateway
starts counting from zero (the runs already open keep running; they are just not counted).

Each principal may send `RATE_LIMIT_PER_MINUTE` requests a minute (a token bucket: bursts up to that many, then
one every 60/limit seconds); beyond that 429 `RATE_LIMITED` with `Retry-After`.
"""

import asyncio
import json
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Literal

from fastapi.responses import StreamingResponse
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.enums.v1 import EventType, HistoryEventFilterType
from temporalio.api.workflowservice.v1 import GetWorkflowExecutionHistoryRequest
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from api.blob_urls import BlobLinks
from api.errors import ApiError
from api.streaming import SSE_HEADERS, STARTING_RUN_SECONDS, sse_stream
from models.errors import ErrorCode

BUSY_RETRY_SECONDS = 5
_WATCH_RETRY_SECONDS = 1.0
_MISSING_RETRY_SECONDS = 0.05


@dataclass(eq=False)
class Place:
    """A request's claim on a run's place: admitted at once, or waiting in line."""

    admitted: asyncio.Event = field(default_factory=asyncio.Event)
    moved: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the line ahead of it got shorter."""


class Admission:
    """Runs in flight and requests waiting for a place, for this gateway."""

    def __init__(self, max_in_flight: int, max_waiting: int) -> None:
        self.max_in_flight = max_in_flight
        self.max_waiting = max_waiting
        self.in_flight = 0
        self._line: deque[Place] = deque()
        self._watchers: set[asyncio.Task[None]] = set()

    def enter(self) -> Place:
        """A place now, or in line; 429 RUNS_BUSY when the line is full too."""
        place = Place()
        if self.in_flight < self.max_in_flight and not self._line:
            self.in_flight += 1
            place.admitted.set()
        elif len(self._line) < self.max_waiting:
            self._line.append(place)
        else:
            message = f"系统繁忙：{self.max_in_flight} 个任务运行中，{self.max_waiting} 个在排队，请稍后再试"
            raise ApiError(429, ErrorCode.RUNS_BUSY, message, {"Retry-After": str(BUSY_RETRY_SECONDS)})
        return place

    def position(self, place: Place) -> int:
        """1 for the next request to be admitted."""
        return self._line.index(place) + 1

    async def positions(self, place: Place) -> AsyncIterator[int]:
        """The place's position each time it changes, until it is admitted."""
        try:
            while not place.admitted.is_set():
                yield self.position(place)
                place.moved.clear()
                waiter = asyncio.ensure_future(place.moved.wait())
                admitted = asyncio.ensure_future(place.admitted.wait())
                try:
                    await asyncio.wait({waiter, admitted}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waiter.cancel()
                    admitted.cancel()
        except BaseException:
            self.leave(place)
            raise

    async def wait(self, place: Place) -> None:
        async for _ in self.positions(place):
            pass

    def leave(self, place: Place) -> None:
        """Give up a place: a waiting request that went away, or an admitted one whose run never started."""
        if place in self._line:
            self._line.remove(place)
            self._moved()
        elif place.admitted.is_set():
            self.release()

    def release(self) -> None:
        """A run closed: its place goes to the first in line."""
        if self._line:
            self._line.popleft().admitted.set()
            self._moved()
        else:
            self.in_flight = max(0, self.in_flight - 1)

    def watch(self, client: Client, run_id: str) -> None:
        """Give the place back when `run_id` closes."""
        task = asyncio.create_task(self._until_closed(client, run_id))
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    async def close(self) -> None:
        for task in list(self._watchers):
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    def _moved(self) -> None:
        for waiting in self._line:
            waiting.moved.set()

    async def _until_closed(self, client: Client, run_id: str) -> None:
        loop = asyncio.get_running_loop()
        patience = loop.time() + STARTING_RUN_SECONDS  # a session's run may not exist yet
        try:
            while (state := await _close_of(client, run_id)) != "closed":
                if state == "missing":
                    if loop.time() > patience:
                        return
                    await asyncio.sleep(_MISSING_RETRY_SECONDS)
        finally:
            self.release()


async def _close_of(client: Client, run_id: str) -> Literal["closed", "open", "missing"]:
    """Wait (a long poll for the close event only) until the run closes. "open": ask again (the poll ended, the run
    continued as new, or Temporal could not be reached for a moment); "missing": no such run (yet)."""
    try:
        page = await client.workflow_service.get_workflow_execution_history(
            GetWorkflowExecutionHistoryRequest(
                namespace=client.namespace,
                execution=WorkflowExecution(workflow_id=run_id),
                wait_new_event=True,
                history_event_filter_type=HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
                skip_archival=True,
            )
        )
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            return "missing"
        await asyncio.sleep(_WATCH_RETRY_SECONDS)
        return "open"
    events = page.history.events
    closed = bool(events) and events[-1].event_type != EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW
    return "closed" if closed else "open"


StartRun = Callable[[], Awaitable[tuple[str, str | None]]]
"""Starts the run a request was admitted for: its run id and session id."""


async def start_admitted(admission: Admission, place: Place, client: Client, start: StartRun) -> tuple[str, str | None]:
    """Start the run of an admitted place and watch it, or give the place back if it does not start."""
    try:
        run_id, session_id = await start()
    except BaseException:
        admission.leave(place)
        raise
    admission.watch(client, run_id)
    return run_id, session_id


async def queued_then_streamed(
    admission: Admission, place: Place, client: Client, start: StartRun, links: BlobLinks
) -> AsyncIterator[str]:
    """SSE for a request that waits for a place: `queued` events, `admitted`, then the run's events."""
    async for position in admission.positions(place):
        yield queued_sse(position)
    run_id, session_id = await start_admitted(admission, place, client, start)
    yield admitted_sse(run_id, session_id)
    async for text in sse_stream(client, run_id, links, starting=True):
        yield text


async def admitted_stream(
    admission: Admission, client: Client, links: BlobLinks, start: StartRun, *, session_header: bool = False
) -> StreamingResponse:
    """A streaming request's response: the run's events at once when there is a place (its id in `X-Run-Id`, and
    its session in `X-Session-Id` when asked), else `queued` events until there is one."""
    place = admission.enter()
    if not place.admitted.is_set():
        return StreamingResponse(
            queued_then_streamed(admission, place, client, start, links),
            media_type="text/event-stream",
            headers=SSE_HEADERS,
        )
    run_id, session_id = await start_admitted(admission, place, client, start)
    headers = {"X-Run-Id": run_id} | ({"X-Session-Id": session_id or ""} if session_header else {})
    return StreamingResponse(
        sse_stream(client, run_id, links, starting=True), media_type="text/event-stream", headers=SSE_HEADERS | headers
    )


def queued_sse(position: int) -> str:
    """The gateway's `queued` event for a request waiting for a place (no `id:`: it is not one of the run's)."""
    data = {"position": position, "message": f"排队中：前面还有 {position - 1} 个请求"}
    return f"event: queued\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def admitted_sse(run_id: str, session_id: str | None) -> str:
    """The gateway's `admitted` event: the waiting request's run has started, under this id."""
    data = {"runId": run_id, "sessionId": session_id}
    return f"event: admitted\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


class RateLimiter:
    """A token bucket per principal: `per_minute` requests in a burst, refilled evenly over the minute."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._buckets: dict[str, tuple[float, float]] = {}
        """principal → (tokens, when last counted)."""

    def check(self, principal: str) -> None:
        """Count one request of `principal`; 429 RATE_LIMITED when its bucket is empty."""
        if self.per_minute <= 0:
            return
        now = time.monotonic()
        rate = self.per_minute / 60.0
        tokens, then = self._buckets.get(principal, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - then) * rate)
        if tokens < 1.0:
            self._buckets[principal] = (tokens, now)
            wait = math.ceil((1.0 - tokens) / rate)
            message = f"请求过于频繁：每分钟最多 {self.per_minute} 个请求"
            raise ApiError(429, ErrorCode.RATE_LIMITED, message, {"Retry-After": str(wait)})
        self._buckets[principal] = (tokens - 1.0, now)
