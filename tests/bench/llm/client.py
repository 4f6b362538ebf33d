"""One run of a family over HTTP, timed on the client: the POST, each SSE event's arrival, the first event that
carries the model's text, the terminal event; a question the run asks (`user_input_required`) is answered at
once, as the person of the README's example would, with `POST /v1/runs/{id}/input`.

Times are `time.monotonic()` seconds, the clock the simulator's log uses (it runs in this process), so a run's
model calls are the log entries admitted between its POST and its terminal event.
"""

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.sse import SseEvent, sse_stream

TERMINAL = frozenset({"done", "stream_end"})


class ShownText:
    """The text a client shows of each agent (as the console does, `agentTextMerger`): its `content_live` text
    before its first `content` event, then while that text begins with the recorded one (same attempt) and is
    longer; else its `content` events' text."""

    def __init__(self) -> None:
        self.recorded: dict[str, tuple[str, int]] = {}
        self.written: dict[str, tuple[str, int, str]] = {}
        """Each agent's live text: its call/attempt/round key, its attempt, and the text so far."""

    def shown(self, agent: str) -> str:
        _, live_attempt, live = self.written.get(agent, ("", 0, ""))
        if agent not in self.recorded:
            return live
        text, attempt = self.recorded[agent]
        ahead = text and live_attempt == attempt and len(live) > len(text) and live.startswith(text)
        return live if ahead else text

    def add(self, event: str, data: Mapping[str, Any]) -> tuple[str, str] | None:
        """The agent's text before and after a `content` or `content_live` event; None for another event."""
        agent = str(data.get("agent", ""))
        before = self.shown(agent)
        piece = str(data.get("text") or "")
        if event == "content":
            text, _ = self.recorded.get(agent, ("", 0))
            fresh = data.get("restart") or agent not in self.recorded
            self.recorded[agent] = (piece if fresh else text + piece, int(data.get("attempt", 1)))
        elif event == "content_live":
            key = f"{data['call']}/{data['attempt']}/{data['round']}"
            current, attempt, live = self.written.get(agent, ("", 0, ""))
            if current == key and data["offset"] == len(live):
                self.written[agent] = (key, attempt, live + piece)
            elif data["offset"] == 0:
                self.written[agent] = (key, int(data["attempt"]), piece)
        else:
            return None
        return before, self.shown(agent)


@dataclass
class TimedRun:
    """One run as the client saw it."""

    family: str
    posted: float = 0.0
    """`time.monotonic()` just before the POST was sent."""
    ended: float | None = None
    """When the terminal event arrived."""
    first_text: float | None = None
    """When the first event carrying the model's text arrived."""
    first_text_sample: str = ""
    texts: list[tuple[float, str]] = field(default_factory=list)
    """Every piece of the model's text the client could show, in order (the new end of an agent's text, or all of
    it after a restart): when it arrived, and the text."""
    shown: ShownText = field(default_factory=ShownText)
    answered: float | None = None
    """When the person's answer was sent (a run that asked one)."""
    run_id: str | None = None
    status: str | None = None
    """The terminal event's status (completed, failed, ...)."""
    events: list[SseEvent] = field(default_factory=list)
    error: str | None = None
    reported: list[str] = field(default_factory=list)
    """The codes of the run's `error` events: what it could not do and went on without (a writing run's
    preprocessing task, a content run's image), so a run that completed this way is counted as degraded."""

    @property
    def ok(self) -> bool:
        return self.ended is not None and self.error is None

    @property
    def completed(self) -> bool:
        return self.ok and self.status == "completed"

    @property
    def wall_s(self) -> float:
        return (self.ended or time.monotonic()) - self.posted


async def timed_run(
    http: httpx.AsyncClient, family: str, url: str, body: Mapping[str, Any], answer: Mapping[str, Any] | None
) -> TimedRun:
    """POST `body` to `url` and read the run's SSE stream to its terminal event, answering a question with
    `answer`."""
    run = TimedRun(family)
    run.posted = time.monotonic()
    try:
        async with http.stream("POST", url, json=dict(body)) as response:
            run.run_id = response.headers.get("x-run-id")
            if response.status_code != 200:
                run.error = f"HTTP {response.status_code}: {(await response.aread()).decode(errors='replace')[:300]}"
                return run
            async for event in sse_stream(response):
                await _seen(http, run, event, answer)
                if run.ended is not None:
                    break
        if run.ended is None:
            run.error = "the stream closed before its terminal event"
    except httpx.HTTPError as err:
        run.error = f"{type(err).__name__}: {err}"
    return run


async def _seen(http: httpx.AsyncClient, run: TimedRun, event: SseEvent, answer: Mapping[str, Any] | None) -> None:
    now = time.monotonic()
    run.events.append(event)
    data = event.data if event.event == "content_live" else event.data.get("data") or {}
    change = run.shown.add(event.event, data)
    if change is not None and change[1] != change[0]:
        before, after = change
        new = after[len(before) :] if after.startswith(before) else after
        run.texts.append((now, new))
        if run.first_text is None:
            run.first_text, run.first_text_sample = now, new
    if event.event == "user_input_required" and answer is not None and run.answered is None:
        run.answered = time.monotonic()
        response = await http.post(f"/v1/runs/{run.run_id}/input", json=dict(answer))
        if response.status_code != 200:
            run.error = f"the answer was refused: {response.status_code} {response.text[:200]}"
    if event.event == "error":
        run.reported.append(str(data.get("code")))
    if event.event in TERMINAL:
        run.ended, run.status = now, data.get("status")
