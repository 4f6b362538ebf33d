"""`GET /v1/runs/{run_id}/ws`: a run's events over a WebSocket, beside SSE (`/v1/runs/{run_id}/events`).

The same source (`api.streaming.stream_items`) feeds both transports, so the socket sends what SSE sends: each event
as one JSON text message, the envelope of SSE's `data:` (`seq`, `type`, `node`, `data`, `ts`, `terminal`), from
the start or after `?after=<id>`, ending with the run's terminal event and a normal close (1000); between them an
agent's live text as `{"type": "content_live", "data": ...}` (no `seq`: see SSE's `content_live`). Every other
message is `{"error": {"code", "message", "requestId", ...}}`, the HTTP API's error body, followed by a close whose
code is 4000 + the HTTP status the same refusal gets over HTTP: 4401 `UNAUTHORIZED`, 4404 `RUN_NOT_FOUND` (a run
that does not exist or is another principal's), 4409 `NO_EVENT_STREAM`, 4422 `INVALID_REQUEST` (a bad `after`),
4429 `RATE_LIMITED`, 4503 `TEMPORAL_UNAVAILABLE`; a stream the gateway could not read to its end sends
`STREAM_INTERRUPTED` with `lastEventId` and closes 1013 (Temporal away: try again later) or 1011.

The socket is accepted before the caller is checked, so a browser (which sees no HTTP status of a refused
handshake) reads why. A key comes as `Authorization: Bearer <key>` from a client that sets headers, or, from a
browser, as the subprotocol `bearer.<key>` offered beside `run-events.v1`; the gateway selects `run-events.v1`,
so the key is never echoed, and it is never in the URL (URLs reach access logs). Reading events takes no place in
the admission line (`api.admission` counts runs that work, not readers); each connection counts as one request
against the caller's rate limit.
"""

import asyncio
import json
import logging
from contextlib import suppress
from typing import Annotated, Any

from fastapi import APIRouter, WebSocket
from pydantic import Field, TypeAdapter, ValidationError
from starlette.websockets import WebSocketDisconnect
from temporalio.client import Client

from api.admission import RateLimiter
from api.blob_urls import BlobLinks
from api.deps import keyed_principal, principal_links
from api.errors import ApiError, error_body, invalid_body, request_id, temporal_unavailable
from api.launch import registered
from api.live_text import live_body
from api.routes.runs import owned_run
from api.streaming import KEEPALIVE, MAX_EVENT_ID, Interruption, format_json, stream_items
from models.errors import ErrorCode
from models.streaming import LIVE_EVENT, LivePiece

log = logging.getLogger("api.run_socket")
router = APIRouter(tags=["runs"])

EVENTS_PROTOCOL = "run-events.v1"
"""The subprotocol the gateway selects; a browser that sends its key as `bearer.<key>` offers this one too."""
KEY_PROTOCOL_PREFIX = "bearer."
NORMAL_CLOSE = 1000
INTERNAL_CLOSE = 1011
TRY_AGAIN_LATER = 1013
REFUSAL_CLOSE_BASE = 4000
"""A refusal closes with 4000 + the HTTP status of the same refusal (4404 for a 404)."""
_AFTER = TypeAdapter(Annotated[int, Field(ge=-1, le=MAX_EVENT_ID)])


@router.websocket("/v1/runs/{run_id}/ws")
async def run_socket(websocket: WebSocket, run_id: str) -> None:
    """Join a run's events over a WebSocket, or resume after `?after=n` (events n+1… follow; -1: from the start)."""
    offered = websocket.scope.get("subprotocols") or []
    await websocket.accept(subprotocol=EVENTS_PROTOCOL if EVENTS_PROTOCOL in offered else None)
    try:
        client, links, offset = await _admitted(websocket, run_id, offered)
    except ApiError as err:
        body = err.body if isinstance(err, _BadAfter) else error_body(err.code, err.message, request_id(websocket))
        await _refuse(websocket, err.status, body)
        return
    except Exception as err:
        rid = request_id(websocket)
        if not temporal_unavailable(err):
            log.error("websocket %s for run %s failed", rid, run_id, exc_info=err)
            body = error_body(ErrorCode.INTERNAL_ERROR, f"服务内部错误（request {rid}）", rid)
            await _close_with(websocket, body, INTERNAL_CLOSE)
            return
        body = error_body(ErrorCode.TEMPORAL_UNAVAILABLE, "工作流服务暂时不可用，请稍后重试", rid)
        await _refuse(websocket, 503, body)
        return
    await _watch_hangup(websocket, _send_events(websocket, client, run_id, links, offset))


async def _admitted(websocket: WebSocket, run_id: str, offered: list[str]) -> tuple[Client, BlobLinks, int]:
    """The Temporal client, the caller's blob links for the run's events and the offset to read from, once the
    caller, its rate, `after` and the run's owner are checked (the HTTP API's refusal otherwise)."""
    state = websocket.app.state
    principal = keyed_principal(websocket, _offered_key(websocket, offered))
    limiter: RateLimiter = state.rate_limiter
    limiter.check(principal)
    offset = 1 + _resume_after(websocket)
    client: Client = state.temporal
    _, description = await owned_run(client, run_id, principal)
    entry = registered(state.registry, description.workflow_type, run_id)
    if entry.events is None:
        raise ApiError(409, ErrorCode.NO_EVENT_STREAM, f"{entry.name} 没有事件流（it streams no events）")
    return client, principal_links(websocket, principal).for_events(entry.events), offset


def _offered_key(websocket: WebSocket, offered: list[str]) -> str:
    """The key of `Authorization: Bearer <key>`, else of an offered `bearer.<key>` subprotocol ("" for none)."""
    scheme, _, key = websocket.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and key.strip():
        return key.strip()
    return next((p.removeprefix(KEY_PROTOCOL_PREFIX) for p in offered if p.startswith(KEY_PROTOCOL_PREFIX)), "")


class _BadAfter(ApiError):
    """A resume point that is not a whole number from -1 to 2^53 - 1: the 422 SSE answers, with its details."""

    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__(422, ErrorCode.INVALID_REQUEST, body["error"]["message"])
        self.body = body


def _resume_after(websocket: WebSocket) -> int:
    """`?after=` as SSE reads it (absent: -1, from the start); any other value refuses the socket."""
    raw = websocket.query_params.get("after")
    if raw is None:
        return -1
    try:
        return _AFTER.validate_python(raw)
    except ValidationError as err:
        errors = [{**e, "loc": ("query", "after", *e["loc"])} for e in err.errors()]
        raise _BadAfter(invalid_body(errors, request_id(websocket))) from err


async def _refuse(websocket: WebSocket, status: int, body: dict[str, Any]) -> None:
    await _close_with(websocket, body, REFUSAL_CLOSE_BASE + status)


async def _close_with(websocket: WebSocket, body: dict[str, Any], code: int) -> None:
    """Send an error message, then close with `code` (a client that left meanwhile is not an error)."""
    with suppress(WebSocketDisconnect, OSError, RuntimeError):
        await websocket.send_text(json.dumps(body, ensure_ascii=False))
        await websocket.close(code)


async def _send_events(websocket: WebSocket, client: Client, run_id: str, links: BlobLinks, offset: int) -> None:
    async for item in stream_items(client, run_id, offset):
        if item is KEEPALIVE:  # the server's pings keep the connection alive
            continue
        if isinstance(item, Interruption):
            body = error_body(ErrorCode.STREAM_INTERRUPTED, item.message, request_id(websocket))
            body["error"]["lastEventId"] = item.last_event_id
            await _close_with(websocket, body, INTERNAL_CLOSE if item.failed else TRY_AGAIN_LATER)
            return
        if isinstance(item, LivePiece):
            await websocket.send_text(json.dumps({"type": LIVE_EVENT, "data": live_body(item)}, ensure_ascii=False))
            continue
        await websocket.send_text(await asyncio.to_thread(format_json, item, links))
    await websocket.close(NORMAL_CLOSE)


async def _watch_hangup(websocket: WebSocket, sending: Any) -> None:
    """Run `sending` until it ends or the client hangs up (its messages are read and ignored), whichever is first:
    a client that leaves stops the reading of the run at once, not at the next event."""
    sender = asyncio.create_task(sending)
    listener = asyncio.create_task(_until_disconnect(websocket))
    await asyncio.wait({sender, listener}, return_when=asyncio.FIRST_COMPLETED)
    for task in (listener, sender):
        task.cancel()
    with suppress(asyncio.CancelledError, WebSocketDisconnect, OSError):
        await listener
    with suppress(asyncio.CancelledError, WebSocketDisconnect, OSError):
        await sender


async def _until_disconnect(websocket: WebSocket) -> None:
    while (await websocket.receive())["type"] != "websocket.disconnect":
        pass
