"""API errors: every failure answers `{"error": {"code", "message"}}` with a fitting HTTP status."""

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from models.errors import ErrorCode


class ApiError(Exception):
    def __init__(self, status: int, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = str(code)
        self.message = message


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    return {"error": {"code": code, "message": message}}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'] if p != 'body')}: {err['msg']}" for err in exc.errors()
        )
        body = error_body(ErrorCode.INVALID_REQUEST, f"请求格式不正确：{problems}")
        return JSONResponse(body, status_code=422)
