"""The app builder's live preview at the gateway: `GET /v1/apps/runs/{id}/preview` tells the run's owner whether
its final workspace has a build (`AppBuilderState.preview`) and gives a capability URL for its `index.html`, or the
note that says why there is none; `GET /v1/apps/previews/<token>/<path>` (`previews`, no API key: the signed URL
is the key, `api.preview_urls`) serves that build's files, by path from its manifest only.

A model wrote the app, so it is served as untrusted content: with its content type and `nosniff`, under a CSP
that sandboxes it (`sandbox allow-scripts allow-forms`: an opaque origin even when opened top-level, so no access
to the gateway's storage, cookies or API; without `allow-forms` a sandbox drops a form's submit event before the
app sees it), lets it load scripts, styles, images and fonts from itself alone, connect nowhere, send no form
(`form-action 'none'`), and be framed only by the gateway; `Access-Control-Allow-Origin: *` lets the
opaque-origin document load its own module scripts (`<script type="module" crossorigin>` is fetched with
`Origin: null`).
"""

import asyncio
import time
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from api.bodies import StrictJsonRoute
from api.deps import AppSettings, Blobs, Links, Principal, TemporalClient
from api.errors import ApiError
from api.preview_urls import PREVIEW_ROUTE, PreviewTokenError, preview_url, read_token
from api.routes.runs import owned_state
from models.app_builder.errors import AppBuilderErrorCode
from models.app_builder.state import AppBuilderState
from stores.app_preview import preview_file, preview_manifest_key
from stores.app_workspace import WorkspacePathError, workspace_path
from workflows.app_builder.workflow import AppBuilderWorkflow

router = APIRouter(prefix="/v1/apps", tags=["apps"], route_class=StrictJsonRoute)
previews = APIRouter(tags=["apps"], route_class=StrictJsonRoute)

NOT_FINISHED = "the run has not finished: its preview is built from the final workspace"
ENDED_WITHOUT = "the run ended before its final workspace was checked: no preview"
CONTENT_TYPES = {
    "html": "text/html; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "mjs": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "json": "application/json",
    "map": "application/json",
    "svg": "image/svg+xml",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "ico": "image/x-icon",
    "woff": "font/woff",
    "woff2": "font/woff2",
    "txt": "text/plain; charset=utf-8",
}


@router.get("/runs/{run_id}/preview", responses={404: {"description": "RUN_NOT_FOUND"}})
async def get_preview(run_id: str, client: TemporalClient, principal: Principal, links: Links) -> JSONResponse:
    """The run's preview: `available`, the `note` saying why there is none, the `url` of its `index.html` (a
    capability URL that expires like the blob URLs, `BLOB_URL_TTL_SECONDS`), its `files` and `bytes`."""
    state = await owned_state(client, run_id, principal, AppBuilderWorkflow.__name__, AppBuilderState, what="应用运行")
    body: dict[str, Any] = {"available": False, "note": None, "url": None, "files": 0, "bytes": 0}
    if state.preview is None:
        body["note"] = (state.preview_note or ENDED_WITHOUT) if state.finished_at is not None else NOT_FINISHED
        return JSONResponse(body)
    url = preview_url(links, run_id, preview_manifest_key(state.preview))
    body |= {"available": True, "url": url, "files": state.preview.files, "bytes": state.preview.bytes}
    return JSONResponse(body)


@previews.get(
    PREVIEW_ROUTE + "{token}/{path:path}",
    response_class=Response,
    responses={
        200: {"content": {"text/html": {}}, "description": "one file of the build"},
        403: {"description": "PREVIEW_URL_INVALID or PREVIEW_URL_EXPIRED"},
        404: {"description": "FILE_NOT_FOUND"},
    },
)
async def get_preview_file(token: str, path: str, request: Request, blobs: Blobs, settings: AppSettings) -> Response:
    """One file of a build by its capability URL, with the headers that keep it sandboxed."""
    now = time.time()
    try:
        grant = read_token(request.app.state.blob_secret, token, now)
    except PreviewTokenError as err:
        code = AppBuilderErrorCode.PREVIEW_URL_EXPIRED if err.expired else AppBuilderErrorCode.PREVIEW_URL_INVALID
        raise ApiError(403, code, str(err)) from err
    missing = ApiError(404, AppBuilderErrorCode.FILE_NOT_FOUND, f"预览里没有这个文件：{path[:80]}")
    try:
        normalised = workspace_path(path or "index.html")
    except WorkspacePathError as err:
        raise missing from err
    data = await asyncio.to_thread(preview_file, blobs, grant.manifest_key, normalised)
    if data is None:
        raise missing
    content_type = CONTENT_TYPES.get(normalised.rsplit(".", 1)[-1].lower(), "application/octet-stream")
    cache = "private, no-cache" if grant.expires is None else f"private, max-age={max(grant.expires - int(now), 0)}"
    headers = preview_headers(settings.base_url) | {"Cache-Control": cache}
    return Response(data, media_type=content_type, headers=headers)


def preview_headers(base_url: str) -> dict[str, str]:
    """The headers every preview file is served with (framed only by the gateway, at `base_url` or its own
    address)."""
    parts = urlsplit(base_url)
    ancestors = f"'self' {parts.scheme}://{parts.netloc}"
    policy = "; ".join(
        (
            "sandbox allow-scripts allow-forms",
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            f"frame-ancestors {ancestors}",
        )
    )
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Access-Control-Allow-Origin": "*",
        "Referrer-Policy": "no-referrer",
    }
