"""API errors: every failure answers `{"error": {"code", "message"}}` with a fitting HTTP status; a request that
fails validation also lists each problem under `details` (`loc`, `msg`, `type`)."""

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from api.bodies import InvalidBody
from models.errors import ErrorCode


class ApiError(Exception):
    """A request the gateway refuses: HTTP status, error code and a message for a person."""

    def __init__(self, status: int, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = str(code)
        self.message = message

    def __reduce__(self) -> tuple[type["ApiError"], tuple[int, str, str]]:
        """Pickles whole, so it can be raised in the intake process and re-raised here."""
        return ApiError, (self.status, self.code, self.message)


def error_body(code: str, message: str, details: list[dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    error: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return {"error": error}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _invalid(exc.errors())

    @app.exception_handler(InvalidBody)
    async def _invalid_body(_: Request, exc: InvalidBody) -> JSONResponse:
        return _invalid(exc.errors)


def _invalid(errors: Sequence[Any]) -> JSONResponse:
    details = [
        {"loc": [str(p) for p in err["loc"] if p != "body"], "msg": err["msg"], "type": err["type"]} for err in errors
    ]
    problems = "; ".join(f"{'.'.join(d['loc'])}: {d['msg']}" for d in details)
    return JSONResponse(error_body(ErrorCode.INVALID_REQUEST, f"请求格式不正确：{problems}", details), status_code=422)
