"""The web console's static files: `/` is its page, `/console/...` its CSS and ES modules (from `api/console`),
`/console/config.json` what the page needs to know about the stack (where the Temporal Web UI is, and each served
family's page), and `/favicon.ico` its icon (the SVG the page links, for clients that ask the conventional path).
No API key is needed for any of them: they hold no data; the console calls the keyed API from the browser like any
client."""

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse

from api.bodies import StrictJsonRoute
from api.errors import ApiError
from models.errors import ErrorCode
from models.settings import Settings
from workflows.common.family import Family

CONSOLE_DIR = Path(__file__).resolve().parent.parent / "console"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}
"""The only kinds of file served, by extension; anything else is a 404."""
CONTENT_SECURITY_POLICY = "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'self'"
"""No other site may frame the console (clickjacking), and it runs only its own scripts: it loads none from
elsewhere and has no inline script. Images, styles and connections are left open: blob URLs may name another host
(`BASE_URL`, a presigned S3 URL)."""
HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
}
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0", "::", ""}

router = APIRouter(tags=["console"], include_in_schema=False, route_class=StrictJsonRoute)


@router.get("/")
async def console_page() -> FileResponse:
    """The console's single page (its router works on the URL's `#/...` fragment)."""
    return console_file("index.html")


@router.get("/favicon.ico")
async def favicon() -> FileResponse:
    """The console's icon (an SVG; the page links it as `/console/favicon.svg`)."""
    return console_file("favicon.svg")


@router.get("/console/config.json")
async def console_config(request: Request) -> JSONResponse:
    """Where the Temporal Web UI listens (`host` null: the host the console was loaded from) and each family's page
    (`api/console/js/pages/<page>.js`), in the families' order."""
    settings: Settings = request.app.state.settings
    families: tuple[Family, ...] = request.app.state.families
    host = None if settings.temporal_host in LOOPBACK_HOSTS else settings.temporal_host
    ui = {"host": host, "port": settings.temporal_ui_port, "namespace": settings.temporal_namespace}
    pages = [
        {"page": f.console.page, "label": {"zh": f.console.label_zh, "en": f.console.label_en}}
        for f in families
        if f.console is not None
    ]
    return JSONResponse({"temporalUi": ui, "pages": pages}, headers=HEADERS)


@router.get("/console/{path:path}")
async def console_asset(path: str) -> FileResponse:
    """A file under `api/console`; a path that leads outside it (`..`, a symlink) is the 404 of a missing file."""
    return console_file(path)


def console_file(path: str) -> FileResponse:
    missing = ApiError(404, ErrorCode.NOT_FOUND, f"没有这个文件：{path}")
    target = (CONSOLE_DIR / path).resolve()
    if not target.is_relative_to(CONSOLE_DIR) or not target.is_file():
        raise missing
    content_type = CONTENT_TYPES.get(target.suffix)
    if content_type is None:
        raise missing
    return FileResponse(target, media_type=content_type, headers=HEADERS)
