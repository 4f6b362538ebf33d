"""A finished post, taken away (issue 29 item 4): `GET /v1/content/runs/{id}/export.txt` (the copy-ready text for
its platform), `/export.md` (Markdown, images as relative links) and `/export.zip` (both and the images, built in
a thread, capped at `CONTENT_EXPORT_MAX_BYTES`). Each is built from the run's state when asked, so it holds the
post's latest version; each answers the run's owner only (anyone else: the 404 of a missing run). Also the check
every post route shares (`post_run`: a post's run or an edit's, of the caller; `finished_state`: one that has
ended, else `POST_NOT_READY`) and, for an export, with a post (`POST_EMPTY`)."""

import asyncio
from collections import OrderedDict
from typing import Any

from fastapi import APIRouter, Response
from temporalio.client import WorkflowExecutionDescription, WorkflowExecutionStatus

from api.bodies import StrictJsonRoute
from api.deps import AppSettings, Blobs, Principal, TemporalClient
from api.errors import ApiError
from api.routes.runs import answered, owned_run
from models.content.edits import ContentEditState
from models.content.errors import ContentErrorCode
from models.content.export import PostExport
from models.content.state import ContentState
from models.errors import ErrorCode
from stores.blob_store import BlobNotFoundError
from stores.content_export import ExportTooLargeError, post_zip
from workflows.content.edit import ContentEditWorkflow
from workflows.content.graph import GRAPH
from workflows.content.workflow import ContentSupervisorWorkflow

router = APIRouter(prefix="/v1/content", tags=["content"], route_class=StrictJsonRoute)

_TEXT = "text/plain; charset=utf-8"
_MARKDOWN = "text/markdown; charset=utf-8"
_ZIP = "application/zip"


def _responses(media_type: str, *, capped: bool = False) -> dict[int | str, dict[str, Any]]:
    responses: dict[int | str, dict[str, Any]] = {
        200: {"content": {media_type: {}}},
        404: {"description": "RUN_NOT_FOUND"},
        409: {"description": "POST_NOT_READY while the run works, POST_EMPTY when it ended without a post"},
    }
    if capped:
        responses[413] = {"description": "EXPORT_TOO_LARGE: over CONTENT_EXPORT_MAX_BYTES"}
    return responses


POST_STATES: dict[str, type[ContentState]] = {
    ContentSupervisorWorkflow.__name__: ContentState,
    ContentEditWorkflow.__name__: ContentEditState,
}
"""The runs that hold a version of a post, and their state: the post's own run and each edit's run."""


async def post_run(
    client: TemporalClient, run_id: str, principal: str
) -> tuple[WorkflowExecutionDescription, ContentState]:
    """Temporal's description and the state of `principal`'s post run or edit run `run_id`; any other run is the
    same 404 as a missing one."""
    handle, description = await owned_run(client, run_id, principal)
    state_type = POST_STATES.get(description.workflow_type or "")
    if state_type is None:
        raise ApiError(404, ErrorCode.RUN_NOT_FOUND, f"没有这个内容运行：{run_id}")
    closed = description.status not in (None, WorkflowExecutionStatus.RUNNING)
    key = (run_id, description.run_id or "")
    known = _CLOSED_STATES.get(key) if closed else None
    if known is not None:
        return description, known.model_copy(deep=True)  # the caller's own, to change if it likes
    state: ContentState = await answered(handle, "state", state_type)
    if closed:
        _CLOSED_STATES[key] = state.model_copy(deep=True)
        while len(_CLOSED_STATES) > MAX_CLOSED_STATES:
            _CLOSED_STATES.popitem(last=False)
    return description, state


_CLOSED_STATES: "OrderedDict[tuple[str, str], ContentState]" = OrderedDict()
"""The states of closed post and edit runs this gateway has read, by workflow and run id: a closed run's state never
changes, so it is asked of a worker (a query, which replays the run on a worker that has it out of its cache) once.
Twenty reads of a post's fifty versions were a thousand queries, and workers too busy to answer some (503). The
run's description is still read each time: its owner, and whether retention has deleted it."""
MAX_CLOSED_STATES = 200


async def finished_state(client: TemporalClient, run_id: str, principal: str) -> ContentState:
    """The state of `principal`'s post run or edit run `run_id` once it ended; 409 POST_NOT_READY while it works
    (both graphs end in `done`)."""
    _, state = await finished_post_run(client, run_id, principal)
    return state


async def finished_post_run(
    client: TemporalClient, run_id: str, principal: str
) -> tuple[WorkflowExecutionDescription, ContentState]:
    """`post_run` once the run ended; 409 POST_NOT_READY while it works."""
    description, state = await post_run(client, run_id, principal)
    if state.metadata.current_node != GRAPH.end:
        raise ApiError(
            409,
            ContentErrorCode.POST_NOT_READY,
            f"成品还没有完成：运行在 {state.metadata.current_node}（the run still works）",
        )
    return description, state


@router.get("/runs/{run_id}/export.txt", response_class=Response, responses=_responses(_TEXT))
async def export_text(run_id: str, client: TemporalClient, principal: Principal) -> Response:
    """The post ready to paste into its platform: title, body, hashtags (`#话题#` on Weibo, `#话题` on Xiaohongshu
    and Douyin, none on WeChat)."""
    export = await _export(client, run_id, principal)
    return _download(export.copy_text(), _TEXT, run_id, "txt")


@router.get("/runs/{run_id}/export.md", response_class=Response, responses=_responses(_MARKDOWN))
async def export_markdown(run_id: str, client: TemporalClient, principal: Principal) -> Response:
    """The post as Markdown: `# title`, its sections in layout order (`## heading` and text), each image as
    `![alt](images/<n>.<ext>)` (the files of `export.zip`), the hashtags last."""
    export = await _export(client, run_id, principal)
    return _download(export.markdown, _MARKDOWN, run_id, "md")


@router.get(
    "/runs/{run_id}/export.zip",
    response_class=Response,
    responses=_responses(_ZIP, capped=True),
)
async def export_zip(
    run_id: str, client: TemporalClient, principal: Principal, blobs: Blobs, settings: AppSettings
) -> Response:
    """`post.md`, `post.txt` and `images/` under a folder named after the run."""
    export = await _export(client, run_id, principal)
    cap = settings.content_export_max_bytes
    try:
        data = await asyncio.to_thread(post_zip, blobs, export, run_id, cap)
    except ExportTooLargeError as err:
        raise ApiError(
            413,
            ContentErrorCode.EXPORT_TOO_LARGE,
            f"导出包有 {err.size} 字节，超过上限 {cap}（over CONTENT_EXPORT_MAX_BYTES）：请用 export.md 并逐张下载图片",
        ) from err
    except BlobNotFoundError as err:
        raise ApiError(409, ContentErrorCode.POST_INCOMPLETE, "成品的图片已不在存储中（an image is gone）") from err
    return _download(data, _ZIP, run_id, "zip")


async def _export(client: TemporalClient, run_id: str, principal: str) -> PostExport:
    state = await finished_state(client, run_id, principal)
    content = state.generated_content
    if content is None or not content.body.strip():
        reason = state.metadata.end_message or state.metadata.end_reason or "没有正文"
        message = f"这次运行没有产出成品，无法导出（no post to export）：{reason}"
        raise ApiError(409, ContentErrorCode.POST_EMPTY, message)
    return PostExport(state)


def _download(body: str | bytes, media_type: str, run_id: str, extension: str) -> Response:
    disposition = f'attachment; filename="{run_id}.{extension}"'
    return Response(body, media_type=media_type, headers={"Content-Disposition": disposition})
