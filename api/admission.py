"""Admission control (seed 000 §8.2) and each principal's request rate, at the gateway.

At most `MAX_RUNS_IN_FLIGHT` runs this gateway started are open at once (50), and at most `MAX_RUNS_WAITING`
requests wait for one of those places (100); beyond that a request is refused at once with 429 `RUNS_BUSY` and
`Retry-After`. A waiting request that streams gets `queued` events with its place in line (the gateway's own,
without an `id:`), then `admitted` with its run's id, then the run's events; a waiting request that does not
stream is answered once it is admitted, and one that hung up meanwhile leaves the line without starting its run.

Each principal holds at most `MAX_RUNS_PER_PRINCIPAL` of the places (by default half of them when the gateway has
API keys, all of them when it serves one principal) and the same fraction of the line; a request over its
principal's places waits in line while others' requests go past it (a place that frees goes to the first in line
whose principal is under its share), and one over its principal's part of the line is refused with 429
`TOO_MANY_RUNS`.

A run waiting for a person's answer (`RunStatus` `waiting`, see `api.run_watch`) gives its place back while it
waits. An answer (`POST /v1/runs/{id}/input`) takes a place again before it is delivered, waiting in line like a
new run; a run that resumes otherwise (its question expired, or it was answered through another gateway) takes its
place back at once, even past the limits, and new requests wait until the count is under them again. A place is
given back for good when the run closes. A principal may have `WAITING_RUNS_PER_PRINCIPAL` runs waiting for it
on this gateway (20); beyond them a new run is refused with 429 `TOO_MANY_WAITING_RUNS` (answer or cancel one).
That also bounds how far past the limits runs whose questions expire together can go: that many per principal.

The counts live in this gateway process: several gateways each admit their own share, and a restarted gateway
starts counting from zero (the runs already open keep running; they are just not counted).

Each principal may send `RATE_LIMIT_PER_MINUTE` requests a minute (a token bucket: bursts up to that many, then
one every 60/limit seconds); beyond that 429 `RATE_LIMITED` with `Retry-After`.
"""

import asyncio
import json
import math
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass, field

from fastapi import Request
from fastapi.responses import StreamingResponse
from temporalio.client import Client

from api.blob_urls import BlobLinks
from api.errors import ApiError
from api.run_watch import follow_run
from api.streaming import SSE_HEADERS, sse_stream
from api.token_buckets import TokenBuckets
from models.errors import ErrorCode
from models.settings import Settings

BUSY_RETRY_SECONDS = 5


def principal_share(settings: Settings, *, keyed: bool) -> int:
    """The places one principal may hold: `MAX_RUNS_PER_PRINCIPAL`, else half of `MAX_RUNS_IN_FLIGHT` (at least
    one) on a gateway with API keys, or all of them on a gateway that serves one principal."""
    if settings.max_runs_per_principal is not None:
        return settings.max_runs_per_principal
    return max(1, settings.max_runs_in_flight // 2) if keyed else settings.max_runs_in_flight


@dataclass(eq=False)
class Place:
    """A principal's claim on a run's place: admitted at once, or waiting in line."""

    principal: str
    admitted: asyncio.Event = field(default_factory=asyncio.Event)
    moved: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the line ahead of it got shorter."""
    settled: bool = False
    """Given back, or handed to its run: nothing more to give back through this place."""


@dataclass(eq=False)
class _Watched:
    """A run this gateway started, and whether it holds a place now (not while it waits for a person)."""

    principal: str
    holding: bool = True


class Admission:
    """Runs in flight and requests waiting for a place, for this gateway, with each principal's share."""

    def __init__(self, max_in_flight: int, max_waiting: int, per_principal: int, waiting_runs: int = 20) -> None:
        self.max_in_flight = max_in_flight
        self.waiting_runs_per_principal = waiting_runs
        self._parked: Counter[str] = Counter()
        """Each principal's runs that wait for a person (they hold no place)."""
        self.max_waiting = max_waiting
        self.per_principal = max(1, per_principal)
        self.waiting_per_principal = max(1, math.ceil(max_waiting * self.per_principal / max(1, max_in_flight)))
        self.in_flight = 0
        self._held: Counter[str] = Counter()
        self._line: deque[Place] = deque()
        self._runs: dict[str, _Watched] = {}
        self._watchers: set[asyncio.Task[None]] = set()

    def enter(self, principal: str) -> Place:
        """A place now, or in line; 429 RUNS_BUSY when the line is full, TOO_MANY_RUNS when the principal's part
        of it is."""
        place = Place(principal)
        if self._parked[principal] >= self.waiting_runs_per_principal:
            message = (
                f"你有 {self._parked[principal]} 个任务在等你的回答（最多 {self.waiting_runs_per_principal} 个）："
                "请先回答或取消其中一些"
            )
            raise ApiError(429, ErrorCode.TOO_MANY_WAITING_RUNS, message, {"Retry-After": str(BUSY_RETRY_SECONDS)})
        if self._may_take(principal):
            self._take(place)
        elif len(self._line) >= self.max_waiting:
            message = f"系统繁忙：{self.max_in_flight} 个任务运行中，{self.max_waiting} 个在排队，请稍后再试"
            raise ApiError(429, ErrorCode.RUNS_BUSY, message, {"Retry-After": str(BUSY_RETRY_SECONDS)})
        elif sum(1 for waiting in self._line if waiting.principal == principal) >= self.waiting_per_principal:
            message = (
                f"你的任务太多：{self._held[principal]} 个运行中，{self.waiting_per_principal} 个在排队"
                f"（每个调用方最多 {self.per_principal} 个同时运行），请稍后再试"
            )
            raise ApiError(429, ErrorCode.TOO_MANY_RUNS, message, {"Retry-After": str(BUSY_RETRY_SECONDS)})
        else:
            self._line.append(place)
        return place

    def position(self, place: Place) -> int:
        """1 for the first request in line."""
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

    async def wait_unless_gone(self, place: Place, request: Request) -> bool:
        """Wait for `place` while the client of `request` (a request that does not stream, its body read) is
        there; False, and the place given back, when it hung up first."""
        if place.admitted.is_set():
            return True
        admitted = asyncio.ensure_future(self.wait(place))
        gone = asyncio.ensure_future(hung_up(request))
        try:
            done, _ = await asyncio.wait({admitted, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            admitted.cancel()
            gone.cancel()
        await asyncio.gather(admitted, gone, return_exceptions=True)
        if gone in done:
            self.leave(place)
            return False
        return True

    def leave(self, place: Place) -> None:
        """Give up a place: a waiting request that went away, or an admitted one whose run never started."""
        if place.settled:
            return
        place.settled = True
        if place in self._line:
            self._line.remove(place)
            self._moved()
        elif place.admitted.is_set():
            self._release(place.principal)

    def watch(self, client: Client, run_id: str, place: Place) -> None:
        """The admitted `place` now belongs to the run `run_id`: given back while it waits for a person and when
        it closes."""
        if run_id in self._runs:  # a retry with its Idempotency-Key: the run holds its place already
            self.leave(place)
            return
        place.settled = True
        run = _Watched(place.principal)
        self._runs[run_id] = run
        task = asyncio.create_task(self._follow(client, run_id, run))
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    def resume(self, run_id: str, place: Place) -> None:
        """An answer admitted with `place` was delivered to `run_id`: the run holds that place again (the place is
        given back if the run holds one already, or is not one this gateway follows)."""
        run = self._runs.get(run_id)
        if run is None or run.holding or run.principal != place.principal:
            self.leave(place)
            return
        place.settled = True
        run.holding = True
        self._unpark(run.principal)

    async def close(self) -> None:
        for task in list(self._watchers):
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    def _may_take(self, principal: str) -> bool:
        return self.in_flight < self.max_in_flight and self._held[principal] < self.per_principal

    def _take(self, place: Place) -> None:
        self.in_flight += 1
        self._held[place.principal] += 1
        place.admitted.set()

    def _release(self, principal: str) -> None:
        """A place given back: it goes to the first in line whose principal may take one."""
        self.in_flight = max(0, self.in_flight - 1)
        self._held[principal] -= 1
        if self._held[principal] <= 0:
            del self._held[principal]
        if [place for place in list(self._line) if self._admit(place)]:
            self._moved()

    def _admit(self, place: Place) -> bool:
        """Admit `place` from the line if there is room for it still (the line is walked in order)."""
        if not self._may_take(place.principal):
            return False
        self._line.remove(place)
        self._take(place)
        return True

    def _moved(self) -> None:
        for waiting in self._line:
            waiting.moved.set()

    def _status(self, run: _Watched, status: str) -> None:
        """The run's `RunStatus` changed: it gives its place back while it waits, and takes one back when it works
        again (a run that ends while it waits has nothing to give back)."""
        if status == "waiting" and run.holding:
            run.holding = False
            self._parked[run.principal] += 1
            self._release(run.principal)
        elif status == "running" and not run.holding:
            run.holding = True
            self._unpark(run.principal)
            self.in_flight += 1
            self._held[run.principal] += 1

    def _unpark(self, principal: str) -> None:
        """One of `principal`'s runs no longer waits for a person (it works again, or it ended)."""
        self._parked[principal] -= 1
        if self._parked[principal] <= 0:
            del self._parked[principal]

    async def _follow(self, client: Client, run_id: str, run: _Watched) -> None:
        try:
            await follow_run(client, run_id, lambda status: self._status(run, status))
        finally:
            self._runs.pop(run_id, None)
            if run.holding:
                self._release(run.principal)
            else:  # it ended while it waited: it holds no place, and waits no more
                self._unpark(run.principal)


async def hung_up(request: Request) -> None:
    """Return when the client of `request`, whose body was read, disconnects."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


StartRun = Callable[[], Awaitable[tuple[str, str | None]]]
"""Starts the run a request was admitted for: its run id and session id."""


async def start_admitted(admission: Admission, place: Place, client: Client, start: StartRun) -> tuple[str, str | None]:
    """Start the run of an admitted place and watch it, or give the place back if it does not start."""
    try:
        run_id, session_id = await start()
    except BaseException:
        admission.leave(place)
        raise
    admission.watch(client, run_id, place)
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
    admission: Admission,
    client: Client,
    links: BlobLinks,
    start: StartRun,
    principal: str,
    *,
    session_header: bool = False,
) -> StreamingResponse:
    """A streaming request's response: the run's events at once when there is a place for `principal` (its id in
    `X-Run-Id`, and its session in `X-Session-Id` when asked), else `queued` events until there is one."""
    place = admission.enter(principal)
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
        self._buckets = TokenBuckets(per_minute)

    def check(self, principal: str) -> None:
        """Count one request of `principal`; 429 RATE_LIMITED when its bucket is empty."""
        wait = self._buckets.wait(principal)
        if wait is not None:
            message = f"请求过于频繁：每分钟最多 {self.per_minute} 个请求"
            raise ApiError(429, ErrorCode.RATE_LIMITED, message, {"Retry-After": str(wait)})
        self._buckets.spend(principal)
