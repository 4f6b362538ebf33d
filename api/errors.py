"""API errors: every failure, 500 and 503 included, answers `{"error": {"code", "message", "requestId"}}` with a
fitting HTTP status; a request that fails validation also lists each problem under `details` (`loc`, `msg`,
`type`). Every response carries its request id in `X-Request-Id` (the caller's own, when it sent a usable one), so
a person reporting a failure can quote it and the gateway's log line can be found.
"""

import logging
import re
import uuid
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from temporalio.service import RPCError, RPCStatusCode

from api.bodies import InvalidBody
from api.body_limits import BodyTooLarge, BodyTooSlow
from models.errors import ErrorCode

log = logging.getLogger("api")

REQUEST_ID_HEADER = "X-Request-Id"
_HEADER_KEY = REQUEST_ID_HEADER.lower().encode()
_USABLE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")
RETRY_TEMPORAL_SECONDS = 5
_UNREACHABLE = (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED)
_HTTP_CODES = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}


class ApiError(Exception):
    """A request the gateway refuses: HTTP status, error code, a message for a person and extra headers."""

    def __init__(self, status: int, code: ErrorCode | str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = str(code)
        self.message = message
        self.headers = headers or {}

    def __reduce__(self) -> tuple[type["ApiError"], tuple[int, str, str, dict[str, str]]]:
        """Pickles whole, so it can be raised in the intake process and re-raised here."""
        return ApiError, (self.status, self.code, self.message, self.headers)


def temporal_unavailable(err: Exception) -> bool:
    """Whether a call failed because Temporal could not be reached (not because it refused the request): an RPC
    error saying so, or a lazy client's first connection failing (which the SDK raises as a RuntimeError)."""
    if isinstance(err, RPCError):  # a connection cut mid-call (the server killed) comes back as UNKNOWN
        return err.status in _UNREACHABLE or (err.status == RPCStatusCode.UNKNOWN and "transport error" in err.message)
    return isinstance(err, RuntimeError) and str(err).startswith("Failed client connect")


QUERY_TIMEOUT = timedelta(seconds=5)
"""How long the gateway waits for a worker to answer a run's query (state, events)."""


def unanswered(err: RPCError) -> bool:
    """Whether a query timed out unanswered (no worker has the run now: killed, its successor not up yet, or too
    busy to answer in time): the server says its deadline passed, or the call was cancelled at it. Which of these
    a caller sees is a race: the SDK's own `rpc_timeout` expiring ("Timeout expired") or the server resetting the
    HTTP/2 stream at the same deadline ("h2 protocol error") both come back as CANCELLED. A gateway's own
    cancellation of a call is an `asyncio.CancelledError`, never this."""
    return err.status in (RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.CANCELLED)


def error_body(
    code: str, message: str, request_id: str, details: list[dict[str, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    error: dict[str, Any] = {"code": code, "message": message, "requestId": request_id}
    if details is not None:
        error["details"] = details
    return {"error": error}


def request_id(connection: HTTPConnection) -> str:
    return str(getattr(connection.state, "request_id", "")) or "-"


_NOSNIFF = (b"x-content-type-options", b"nosniff")


class RequestIdMiddleware:
    """Gives each request an id (`request.state.request_id`) and names it in the response's `X-Request-Id`; a
    WebSocket gets one too (its error messages carry it). Every response also says `X-Content-Type-Options:
    nosniff`: a browser takes a blob, an export or an error as the type it is served as, never as one it guesses.
    An unexpected error before the response started is answered here, 500 `INTERNAL_ERROR` (and logged): raised
    further, past the server-error middleware, it would make uvicorn close the client's kept-alive connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        sent = dict(scope.get("headers") or []).get(_HEADER_KEY, b"").decode("latin-1")
        rid = sent if _USABLE_REQUEST_ID.match(sent) else uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = rid
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers") or [])
                names = {name.lower() for name, _ in headers}
                added = [(_HEADER_KEY, rid.encode())] if _HEADER_KEY not in names else []
                if _NOSNIFF[0] not in names:
                    added.append(_NOSNIFF)
                message["headers"] = [*headers, *added]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:
            if started:  # a response cut mid-way: closing the connection is how its client learns that
                raise
            await _internal(Request(scope), exc)(scope, receive, send_with_id)


def install_error_handlers(app: FastAPI) -> None:
    app.add_middleware(RequestIdMiddleware)

    @app.exception_handler(BodyTooLarge)
    async def _too_large(request: Request, exc: BodyTooLarge) -> JSONResponse:
        return _body_too_large(request, exc)

    @app.exception_handler(BodyTooSlow)
    async def _too_slow(request: Request, exc: BodyTooSlow) -> JSONResponse:
        return _body_too_slow(request, exc)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        body = error_body(exc.code, exc.message, request_id(request))
        return JSONResponse(body, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _invalid(request, exc.errors())

    @app.exception_handler(InvalidBody)
    async def _invalid_body(request: Request, exc: InvalidBody) -> JSONResponse:
        return _invalid(request, exc.errors)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
        if isinstance(exc.__cause__, BodyTooLarge):  # FastAPI reports any failure to read a body it parses as 400
            return _body_too_large(request, exc.__cause__)
        if isinstance(exc.__cause__, BodyTooSlow):
            return _body_too_slow(request, exc.__cause__)
        if isinstance(exc.__cause__, InvalidBody):  # a body `strict_json` refused: answered as the intake does
            return _invalid(request, exc.__cause__.errors)
        code = _HTTP_CODES.get(exc.status_code, ErrorCode.INVALID_REQUEST)
        body = error_body(code, str(exc.detail), request_id(request))
        return JSONResponse(body, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(RPCError)
    @app.exception_handler(RuntimeError)
    async def _temporal_error(request: Request, exc: Exception) -> JSONResponse:
        if temporal_unavailable(exc):
            return JSONResponse(
                error_body(ErrorCode.TEMPORAL_UNAVAILABLE, "工作流服务暂时不可用，请稍后重试", request_id(request)),
                status_code=503,
                headers={"Retry-After": str(RETRY_TEMPORAL_SECONDS)},
            )
        return _internal(request, exc)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return _internal(request, exc)


def _body_too_large(request: Request, exc: BodyTooLarge) -> JSONResponse:
    message = f"请求体过大：此接口最多 {exc.limit // 1024} KB（request body too large）"
    return JSONResponse(error_body(ErrorCode.INPUT_TOO_LARGE, message, request_id(request)), status_code=413)


def _body_too_slow(request: Request, exc: BodyTooSlow) -> JSONResponse:
    message = f"请求体发送太慢（{exc}）"
    body = error_body(ErrorCode.REQUEST_TIMEOUT, message, request_id(request))
    return JSONResponse(body, status_code=408, headers={"Connection": "close"})


def _internal(request: Request, exc: Exception) -> JSONResponse:
    rid = request_id(request)
    log.error("request %s %s %s failed", rid, request.method, request.url.path, exc_info=exc)
    body = error_body(ErrorCode.INTERNAL_ERROR, f"服务内部错误（request {rid}）", rid)
    return JSONResponse(body, status_code=500, headers={REQUEST_ID_HEADER: rid})  # outside the id middleware


def _invalid(request: Request, errors: Sequence[Any]) -> JSONResponse:
    return JSONResponse(invalid_body(errors, request_id(request)), status_code=422)


def invalid_body(errors: Sequence[Any], rid: str) -> dict[str, dict[str, Any]]:
    """The 422 `INVALID_REQUEST` body for pydantic's validation errors: each problem's `loc`, `msg` and `type`."""
    details = [
        {"loc": [str(p) for p in err["loc"] if p != "body"], "msg": err["msg"], "type": err["type"]} for err in errors
    ]
    problems = "; ".join(f"{'.'.join(d['loc'])}: {d['msg']}" if d["loc"] else d["msg"] for d in details)
    return error_body(ErrorCode.INVALID_REQUEST, f"请求格式不正确：{problems}", rid, details)
