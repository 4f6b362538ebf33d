"""The live path of an agent's text on the gateway: the pieces the workers' activities post as the model writes them
(`POST /internal/live-text`, `activities.common.live_text`) handed at once to this gateway's readers of that run
(`LIVE_READERS`), as `content_live` items among its events (`api.streaming.stream_items`).

A piece reaches the readers connected when it arrives. A reader that connects in the middle of a call (a page
reloaded while the model writes) first gets the call's text so far as pieces from offset 0, then the pieces that
follow on from it: the gateway keeps the text of each call in progress (`CallsInProgress`: up to `CATCH_UP_CHARS`
per call, until the worker says the call ended, or `KEPT_SECONDS` after its last piece), nothing else. A reader
that falls `READER_BACKLOG` items behind misses pieces, which its client notices by their offsets
(`models.streaming.LivePiece`); the `content` events carry the same text durably. The route takes a piece only
with the `LIVE_TEXT_SECRET` the workers share (401 `UNAUTHORIZED` otherwise; 404 on a gateway that has none): a
reader can trust that a live piece came from the run's own agent. It is not part of the public API and is not in
`/openapi.json`; its body is read after the secret is checked, and held to the limit of a route that declares none.
"""

import asyncio
import hmac
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from api.bodies import parse_body
from api.errors import ApiError
from models.errors import ErrorCode
from models.settings import Settings
from models.streaming import LIVE_EVENT, LIVE_PIECE_CHARS, LIVE_TEXT_PATH, EndedCall, LiveBatch, LivePiece

READER_BACKLOG = 1000
"""Items a reader's queue may hold before the live pieces for it are dropped."""
CATCH_UP_CHARS = 64_000
"""The most text of one call kept for readers who connect mid-call; a longer call's text is not kept (they get its
`content` events, and its live text from its next call on)."""
KEPT_SECONDS = 30.0
"""How long the text of a call is kept after its last piece (a call whose model is still writing sends one at
least every second)."""


@dataclass
class _Written:
    """The text so far of one call's attempt and round."""

    piece: LivePiece
    """The call's first piece (its agent, attempt and round)."""
    parts: list[str]
    length: int
    last_piece_at: float


class CallsInProgress:
    """The text so far of each run's calls in progress, kept for readers who connect mid-call."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._written: dict[str, dict[str, _Written]] = {}
        self._swept_at = clock()

    def add(self, piece: LivePiece) -> None:
        """Take `piece` into its call's text: it starts a call's text (offset 0) or follows on from it; a piece after
        a gap (a post this gateway missed), or past `CATCH_UP_CHARS`, forgets the call."""
        now = self._clock()
        self._sweep(now)
        written: _Written | None
        if piece.offset == 0:
            written = self._written.setdefault(piece.workflow_id, {})[piece.call] = _Written(piece, [], 0, now)
        else:
            written = self._written.get(piece.workflow_id, {}).get(piece.call)
        if written is None or (written.piece.attempt, written.piece.round) != (piece.attempt, piece.round):
            return
        if written.length != piece.offset or written.length + len(piece.text) > CATCH_UP_CHARS:
            self.end(EndedCall(workflow_id=piece.workflow_id, call=piece.call))
            return
        written.parts.append(piece.text)
        written.length += len(piece.text)
        written.last_piece_at = now

    def end(self, call: EndedCall) -> None:
        """Forget an ended call's text."""
        calls = self._written.get(call.workflow_id, {})
        calls.pop(call.call, None)
        if not calls:
            self._written.pop(call.workflow_id, None)

    def so_far(self, run_id: str) -> list[LivePiece]:
        """The text so far of `run_id`'s calls in progress, as pieces from offset 0 (each at most
        `LIVE_PIECE_CHARS`)."""
        pieces = []
        for written in self._written.get(run_id, {}).values():
            text = "".join(written.parts)
            for start in range(0, len(text), LIVE_PIECE_CHARS):
                chunk = text[start : start + LIVE_PIECE_CHARS]
                pieces.append(written.piece.model_copy(update={"offset": start, "text": chunk}))
        return pieces

    def _sweep(self, now: float) -> None:
        """Forget the calls with no piece for `KEPT_SECONDS` (looked for at most once a second)."""
        if now - self._swept_at < 1.0:
            return
        self._swept_at = now
        for run_id, calls in list(self._written.items()):
            for call, written in list(calls.items()):
                if now - written.last_piece_at > KEPT_SECONDS:
                    del calls[call]
            if not calls:
                del self._written[run_id]


class LiveReaders:
    """The queues of this gateway's readers, by the run (workflow id) they read, and the text so far of the runs'
    calls in progress."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._queues: dict[str, set[asyncio.Queue[Any]]] = {}
        self._in_progress = CallsInProgress(clock)

    @contextmanager
    def reading(self, run_id: str, queue: "asyncio.Queue[Any]") -> Iterator[None]:
        """While the block runs, `run_id`'s live pieces go into `queue` too, after the text so far of its calls in
        progress."""
        for piece in self._in_progress.so_far(run_id):
            queue.put_nowait(piece)
        self._queues.setdefault(run_id, set()).add(queue)
        try:
            yield
        finally:
            readers = self._queues.get(run_id, set())
            readers.discard(queue)
            if not readers:
                self._queues.pop(run_id, None)

    def publish(self, piece: LivePiece) -> int:
        """Hand `piece` to its run's readers; how many took it."""
        self._in_progress.add(piece)
        taken = 0
        for queue in self._queues.get(piece.workflow_id, ()):
            if queue.qsize() < READER_BACKLOG:
                queue.put_nowait(piece)
                taken += 1
        return taken

    def ended(self, call: EndedCall) -> None:
        """`call` sends no more pieces: a reader who connects now gets its text from the `content` events."""
        self._in_progress.end(call)


LIVE_READERS = LiveReaders()
"""This gateway process's readers (the route and every stream share it)."""


def live_body(piece: LivePiece) -> dict[str, Any]:
    """A live piece as a reader gets it (SSE `data:` of a `content_live` event; a WebSocket message's `data`)."""
    return piece.model_dump(mode="json", exclude={"workflow_id"})


def live_sse(piece: LivePiece) -> str:
    """A live piece as SSE (no `id:`: it is not one of the run's events, and a client resumes after those)."""
    return f"event: {LIVE_EVENT}\ndata: {json.dumps(live_body(piece), ensure_ascii=False)}\n\n"


def from_a_worker(request: Request) -> None:
    """Refuses a request without the workers' secret (before its body is read)."""
    settings: Settings = request.app.state.settings
    secret = settings.live_text_secret.get_secret_value()
    if not secret:
        raise ApiError(404, ErrorCode.NOT_FOUND, "this gateway takes no live text (LIVE_TEXT_SECRET is unset)")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.encode(), secret.encode()):
        raise ApiError(401, ErrorCode.UNAUTHORIZED, "live text needs the workers' LIVE_TEXT_SECRET")


router = APIRouter(include_in_schema=False, dependencies=[Depends(from_a_worker)])


@router.post(LIVE_TEXT_PATH, status_code=204)
async def post_live_text(request: Request) -> Response:
    """Pieces of agents' text from a worker (a `LiveBatch`), for this gateway's readers of their runs. The body is
    read only once the secret is checked, and it is parsed here (not as a declared body, which FastAPI would read
    first): at most the 64 KiB of a route that declares none, parsed by the rule every body is (`parse_body`)."""
    batch = parse_body(LiveBatch, [await request.body()])
    for piece in batch.pieces:
        LIVE_READERS.publish(piece)
    for call in batch.ended:
        LIVE_READERS.ended(call)
    return Response(status_code=204)
