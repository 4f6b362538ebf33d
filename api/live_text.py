"""The live path of an agent's text on the gateway: the pieces the workers' activities post as the model writes them
(`POST /internal/live-text`, `activities.common.live_text`) handed at once to this gateway's readers of that run
(`LIVE_READERS`), as `content_live` items among its events (`api.streaming.stream_items`).

Nothing is kept: a piece reaches the readers connected when it arrives, and a run without a reader here costs a
dictionary lookup. A reader that falls `READER_BACKLOG` items behind misses pieces, which its client notices by
their offsets (`models.streaming.LivePiece`); the `content` events carry the same text durably. The route takes a
piece only with the `LIVE_TEXT_SECRET` the workers share (401 `UNAUTHORIZED` otherwise; 404 on a gateway that has
none): a reader can trust that a live piece came from the run's own agent. It is not part of the public API and is
not in `/openapi.json`; its body is read after the secret is checked, and held to the limit of a route that
declares none.
"""

import asyncio
import hmac
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import APIRouter, Depends, Request, Response

from api.bodies import parse_body
from api.errors import ApiError
from models.errors import ErrorCode
from models.settings import Settings
from models.streaming import LIVE_EVENT, LIVE_TEXT_PATH, LiveBatch, LivePiece

READER_BACKLOG = 1000
"""Items a reader's queue may hold before the live pieces for it are dropped."""


class LiveReaders:
    """The queues of this gateway's readers, by the run (workflow id) they read."""

    def __init__(self) -> None:
        self._queues: dict[str, set[asyncio.Queue[Any]]] = {}

    @contextmanager
    def reading(self, run_id: str, queue: "asyncio.Queue[Any]") -> Iterator[None]:
        """While the block runs, `run_id`'s live pieces go into `queue` too."""
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
        taken = 0
        for queue in self._queues.get(piece.workflow_id, ()):
            if queue.qsize() < READER_BACKLOG:
                queue.put_nowait(piece)
                taken += 1
        return taken


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
    return Response(status_code=204)
