"""An agent's text straight to the gateways while the model writes it (`content_live` pieces, `models.streaming`),
for readers to see at once, ahead of the `content` events that record it durably in batches.

The live path bypasses Temporal: the activity posts each piece over HTTP to every gateway in `LIVE_TEXT_URLS`
(`POST /internal/live-text`, with `LIVE_TEXT_SECRET`), and a gateway hands it to the readers of that run it has
open (`api.live_text`). One post is in flight per worker process: it carries every piece written since the last
one, of every run, a call's pieces joined into one. One run alone gets each chunk of its model as it comes; 50 at
once share a post per few milliseconds instead of sending one per chunk, so a busy worker or gateway gets fewer,
larger posts, never a queue. Best effort: a piece that cannot be posted is lost to the live readers only (the
`content` events still carry it; a reader drops a live text with a gap), and a gateway that refuses or cannot be
reached is logged at most once a minute.

The worker installs its `LivePoster` for every activity it runs (`LiveTextInterceptor`); `live_text()` is the
running activity's live text for one agent call, None when the worker posts none. When the activity ends, its calls
are posted as ended (after their last pieces), so a gateway forgets the text it kept of them for readers who
connect mid-call.
"""

import asyncio
import logging
import time
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any

import httpx
from opentelemetry.instrumentation.utils import suppress_http_instrumentation
from temporalio import activity
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from models.settings import Settings
from models.streaming import LIVE_BATCH_ITEMS, LIVE_PIECE_CHARS, LIVE_TEXT_PATH, EndedCall, LivePiece, StreamTarget

log = logging.getLogger("activities.live_text")

POST_CHARS = LIVE_PIECE_CHARS
"""The most text one post carries (a gateway takes bodies of 64 KiB); more waits for the next post (a longer piece
goes in parts)."""
POST_INTERVAL_SECONDS = 0.05
"""The least time between the starts of two posts: text reaches a reader in steps this long or shorter (a person
reads it as continuous), and each post, which costs both ends about as much CPU as its text, carries more."""
POST_TIMEOUT_SECONDS = 2.0
"""The longest one post may take; the pieces written meanwhile wait for the next one."""
_QUIET_SECONDS = 60.0
"""A gateway whose posts fail is logged at most once this often."""

_poster: ContextVar["LivePoster | None"] = ContextVar("live_poster", default=None)
_calls: ContextVar[list["EndedCall"]] = ContextVar("live_calls")
"""The running activity's calls with live text: when the activity ends, they have ended."""


class LiveTextConfigError(Exception):
    """`LIVE_TEXT_URLS` without `LIVE_TEXT_SECRET`, or a URL that is not http(s)."""


def live_poster(settings: Settings) -> "LivePoster | None":
    """Where the worker's activities post live text (`LIVE_TEXT_URLS`, with `LIVE_TEXT_SECRET`); None when nowhere."""
    urls = [url.strip() for url in settings.live_text_urls.split(",") if url.strip()]
    if not urls:
        return None
    bad = [url for url in urls if not url.startswith(("http://", "https://"))]
    if bad:
        raise LiveTextConfigError(f"LIVE_TEXT_URLS: {bad[0]!r} is not an http(s) URL")
    secret = settings.live_text_secret.get_secret_value()
    if not secret:
        raise LiveTextConfigError("LIVE_TEXT_URLS needs LIVE_TEXT_SECRET, the secret its gateways share")
    return LivePoster(urls, secret)


class LivePoster:
    """Posts live pieces to every gateway in `urls`: one post in flight for the worker process, carrying every piece
    written since the last one (a call's pieces joined into one), through one HTTP client."""

    def __init__(self, urls: Sequence[str], secret: str) -> None:
        self.urls = [url.rstrip("/") + LIVE_TEXT_PATH for url in urls]
        self._headers = {"Authorization": f"Bearer {secret}"}
        self._client: httpx.AsyncClient | None = None
        self._failed_at: dict[str, float] = {}
        self._pending: dict[tuple[str, str, int, int], LivePiece] = {}
        """The pieces for the next post, by run/call/attempt/round (insertion order: the order they were written)."""
        self._ended: list[EndedCall] = []
        """Calls that ended, posted once every piece written before has been (so a gateway forgets their text)."""
        self._task: asyncio.Task[None] | None = None
        self._posted_at = -POST_INTERVAL_SECONDS
        """When the last post started (the event loop's clock)."""

    def send(self, piece: LivePiece) -> None:
        """Post `piece` now, or with the next post when one is in flight."""
        key = (piece.workflow_id, piece.call, piece.attempt, piece.round)
        waiting = self._pending.get(key)
        if waiting is not None and waiting.offset + len(waiting.text) == piece.offset:
            self._pending[key] = waiting.model_copy(update={"text": waiting.text + piece.text})
        else:
            self._pending[key] = piece
        self._start_posting()

    def end(self, call: EndedCall) -> None:
        """Tell the gateways that `call` sends no more pieces, after the ones it sent."""
        self._ended.append(call)
        self._start_posting()

    def _start_posting(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._post_pending())

    async def _post_pending(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending or self._ended:
            wait = self._posted_at + POST_INTERVAL_SECONDS - loop.time()
            if wait > 0:  # what is written meanwhile joins this post
                await asyncio.sleep(wait)
            self._posted_at = loop.time()
            batch: list[dict[str, Any]] = []
            chars = 0
            for key in list(self._pending):
                piece, room = self._pending[key], POST_CHARS - chars
                if room <= 0:
                    break
                if len(piece.text) > room:  # its first `room` characters now, the rest with the next post
                    self._pending[key] = piece.model_copy(
                        update={"text": piece.text[room:], "offset": piece.offset + room}
                    )
                    batch.append(piece.model_copy(update={"text": piece.text[:room]}).model_dump(mode="json"))
                    break
                batch.append(self._pending.pop(key).model_dump(mode="json"))
                chars += len(piece.text)
            if self._client is None:
                self._client = httpx.AsyncClient(timeout=POST_TIMEOUT_SECONDS)
            body: dict[str, Any] = {"pieces": batch}
            if not self._pending:  # every piece written so far is in this post: the ended calls may follow it
                body["ended"] = [call.model_dump(mode="json") for call in self._ended[:LIVE_BATCH_ITEMS]]
                del self._ended[:LIVE_BATCH_ITEMS]
            with suppress_http_instrumentation():  # plumbing, not a span of whichever activity started this task
                await asyncio.gather(*(self._post_to(self._client, url, body) for url in self.urls))

    async def _post_to(self, client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> None:
        try:
            response = await client.post(url, json=body, headers=self._headers)
            failure = None if response.is_success else f"answered {response.status_code}"
        except httpx.HTTPError as err:
            failure = f"{type(err).__name__}: {err}"
        if failure is not None and time.monotonic() - self._failed_at.get(url, -_QUIET_SECONDS) >= _QUIET_SECONDS:
            self._failed_at[url] = time.monotonic()
            log.warning("live text to %s failed (%s); its readers see the batched text only", url, failure)

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._client is not None:
            await self._client.aclose()


class LiveTextInterceptor(Interceptor):
    """Makes `poster` the live text's way out for every activity the worker runs."""

    def __init__(self, poster: LivePoster) -> None:
        self.poster = poster

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Inbound(next, self.poster)


class _Inbound(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, poster: LivePoster) -> None:
        super().__init__(next)
        self._live_poster = poster

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        _poster.set(self._live_poster)  # the activity's own context: it ends with the activity
        calls: list[EndedCall] = []
        _calls.set(calls)
        try:
            return await super().execute_activity(input)
        finally:
            for call in calls:
                self._live_poster.end(call)


class LiveText:
    """One agent call's live text: its pieces numbered by offset within the attempt and round; `restart()` starts a
    new round."""

    def __init__(self, poster: LivePoster, target: StreamTarget, agent: str) -> None:
        info = activity.info()
        self._poster = poster
        self._base = {"workflow_id": target.workflow_id, "agent": agent, "call": info.activity_id}
        _calls.get().append(EndedCall(workflow_id=target.workflow_id, call=info.activity_id))
        self._attempt = info.attempt
        self._round = 0
        self._offset = 0

    def add(self, text: str) -> None:
        piece = LivePiece(attempt=self._attempt, round=self._round, offset=self._offset, text=text, **self._base)
        self._offset += len(text)
        self._poster.send(piece)

    def restart(self) -> None:
        """What comes next replaces what this round sent."""
        if self._offset:
            self._round, self._offset = self._round + 1, 0


def live_text(target: StreamTarget, agent: str) -> LiveText | None:
    """The running activity's live text of `agent`'s call to `target`; None when the worker posts no live text."""
    poster = _poster.get()
    return None if poster is None else LiveText(poster, target, agent)
