"""The app builder at the gateway (seed 003): `POST /v1/apps/runs` starts an `AppBuilderWorkflow` and streams its
events as SSE (run id in `X-Run-Id`); the generated project is served from the run's workspace: the whole of it
as a zip (`GET /v1/apps/runs/{id}/workspace.zip`), its file list and one file at a time. The generic run API
serves the run's state (the blackboard), cancel and the graph; `POST /v1/runs` starts the same run
(`APP_RUN`). With `fromRun`, a run is a follow-up change of an earlier run (`app_rounds`)."""

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel

from api.admission import admitted_stream
from api.bodies import StrictJsonRoute
from api.deps import AppSettings, Blobs, IdempotencyKey, Links, Preparation, Principal, RunAdmission, TemporalClient
from api.errors import ApiError
from api.families import FamilyGateway
from api.launch import LaunchContext, Launcher, PrepareContext, bound_start, start_run
from api.routes import app_preview
from api.routes.app_rounds import base_of, prompt_messages
from api.routes.app_rounds import router as rounds_router
from api.routes.runs import owned_state
from models.app_builder.agents import AppBrief
from models.app_builder.app_kinds import kind_named, offline_refusal
from models.app_builder.errors import AppBuilderErrorCode
from models.app_builder.runs import SUPPORTED_TECH_STACK, AppRunBody, AppRunInput, AppRunRequest, unsupported_tech
from models.app_builder.state import AppBuilderState
from models.runs import RunTicket
from stores.app_workspace import (
    WorkspacePathError,
    load_manifest,
    read_text,
    workspace_listing,
    workspace_path,
    workspace_zip,
)
from stores.blob_store import BlobStore
from workflows.app_builder.family import APP_BUILDER
from workflows.app_builder.workflow import AppBuilderWorkflow

router = APIRouter(prefix="/v1/apps", tags=["apps"], route_class=StrictJsonRoute)

SUMMARY_CHARS = 60
OFFLINE_FOLLOWUP = (
    "没有配置模型：后续修改（fromRun）需要配置模型（LLM_PROVIDER）；离线构建器只能从零构建它认识的四类应用"
    "（follow-up changes need a configured model: the offline builder builds its four kinds from scratch only）"
)
TEXT_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox"}
"""A generated file is served as text, never rendered: its author is a model."""


@router.post(
    "/runs",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "the run's events as SSE, ending with `done`"}
    },
)
async def start_app_run(
    body: AppRunBody,
    client: TemporalClient,
    settings: AppSettings,
    preparation: Preparation,
    principal: Principal,
    admission: RunAdmission,
    links: Links,
    idempotency_key: IdempotencyKey = None,
) -> StreamingResponse:
    """Build a front-end project from a description: analysis (`document_ready` ×4), planning (`plan_ready`),
    execution in waves (`wave_started`, `task_started`, `task_finished`, `conflict`), quality and repair
    (`quality_result`, `repair_round`), then `app_ready` and `done`. Download the project from
    `GET /v1/apps/runs/{id}/workspace.zip`. With `fromRun`, a follow-up change of that earlier run (needs a model):
    it starts from that run's final workspace; see `GET /v1/apps/runs/{id}/rounds` and `/diff`."""
    context = LaunchContext(client, settings, APP_BUILDER, principal, idempotency_key)
    prepared, session_id = await with_base(context, prepare_app(body, preparation), body.session_id)
    start = bound_start(start_app, context, prepared, session_id)
    return await admitted_stream(admission, client, links.for_events(APP_BUILDER.events), start, principal)


@router.get(
    "/runs/{run_id}/workspace.zip",
    response_class=Response,
    responses={
        200: {"content": {"application/zip": {}}, "description": "the project, every file under one folder"},
        404: {"description": "RUN_NOT_FOUND"},
        409: {"description": "WORKSPACE_NOT_READY: no file is written yet"},
    },
)
async def download_workspace(run_id: str, client: TemporalClient, principal: Principal, blobs: Blobs) -> Response:
    """The run's project as a zip, every file under a folder named after the run: the final workspace once the
    run ended, else the newest snapshot (`X-Workspace-Final` says which)."""
    state = await _app_state(client, run_id, principal)
    if state.workspace.manifest_ref is None:
        raise ApiError(
            409, AppBuilderErrorCode.WORKSPACE_NOT_READY, "工作区还没有文件（the run has not written any file yet）"
        )
    data = await asyncio.to_thread(workspace_zip, blobs, state.workspace, run_id)
    headers = {
        "Content-Disposition": f'attachment; filename="{run_id}.zip"',
        "X-Workspace-Final": "true" if state.finished_at is not None else "false",
    }
    return Response(data, media_type="application/zip", headers=headers)


@router.get("/runs/{run_id}/files", responses={404: {"description": "RUN_NOT_FOUND"}})
async def list_files(run_id: str, client: TemporalClient, principal: Principal, blobs: Blobs) -> JSONResponse:
    """The workspace's files: path and size, sorted by path."""
    state = await _app_state(client, run_id, principal)
    listing = await asyncio.to_thread(workspace_listing, blobs, state.workspace)
    files: list[dict[str, Any]] = [{"path": path, "size": size} for path, size in listing]
    return JSONResponse({"runId": run_id, "final": state.finished_at is not None, "files": files})


@router.get(
    "/runs/{run_id}/files/{path:path}",
    response_class=Response,
    responses={
        200: {"content": {"text/plain": {}}, "description": "the file's text"},
        404: {"description": "RUN_NOT_FOUND or FILE_NOT_FOUND"},
    },
)
async def get_file(run_id: str, path: str, client: TemporalClient, principal: Principal, blobs: Blobs) -> Response:
    """One file of the workspace, as UTF-8 text."""
    state = await _app_state(client, run_id, principal)
    try:
        normalised = workspace_path(path)
    except WorkspacePathError as err:
        raise ApiError(404, AppBuilderErrorCode.FILE_NOT_FOUND, f"工作区没有这个文件：{path[:80]}") from err
    text = await asyncio.to_thread(_file_text, blobs, state, normalised)
    if text is None:
        raise ApiError(404, AppBuilderErrorCode.FILE_NOT_FOUND, f"工作区没有这个文件：{normalised}")
    return Response(text, media_type="text/plain; charset=utf-8", headers=TEXT_HEADERS)


def prepare_app(run_input: BaseModel, context: PrepareContext) -> AppRunInput:
    """The request with the run's limits from settings; the owner is set when the run starts. A `techStack` the
    builder does not write is refused (TECH_STACK_UNSUPPORTED) rather than answered with a React app; without a
    model, a message that names none of the kinds the offline builder builds is refused (OFFLINE_APP_UNSUPPORTED,
    naming them) rather than answered with one of them, and so is a follow-up (OFFLINE_FOLLOWUP_UNSUPPORTED: follow-up
    changes need a model) rather than silently rebuilt."""
    assert isinstance(run_input, AppRunRequest)
    unsupported = unsupported_tech(run_input.tech_stack)
    if unsupported:
        supported = ", ".join(sorted(set(SUPPORTED_TECH_STACK.values())))
        message = f"不支持的技术栈：{', '.join(unsupported)}（应用生成器只写 {supported} 工程）"
        raise ApiError(422, AppBuilderErrorCode.TECH_STACK_UNSUPPORTED, message)
    settings = context.settings
    if settings.llm_provider is None and run_input.from_run is not None:
        raise ApiError(422, AppBuilderErrorCode.OFFLINE_FOLLOWUP_UNSUPPORTED, OFFLINE_FOLLOWUP)
    if settings.llm_provider is None and kind_named(run_input.message) is None:
        raise ApiError(422, AppBuilderErrorCode.OFFLINE_APP_UNSUPPORTED, offline_refusal(run_input.message))
    return AppRunInput(
        owner="",
        brief=AppBrief(message=run_input.message, platform=run_input.platform, tech_stack=run_input.tech_stack),
        llm_configured=settings.llm_provider is not None,
        toolchain=settings.app_toolchain_checks,
        deadline_seconds=settings.app_run_deadline_seconds,
        from_run=run_input.from_run,
    )


async def with_base(
    context: LaunchContext, prepared: AppRunInput, session_id: str | None
) -> tuple[AppRunInput, str | None]:
    """A follow-up's input with its base read from its `fromRun` (`app_rounds.base_of`, which refuses a base that
    is not the caller's, not ended with files or at the chain's cap), in that run's session and with its platform
    and tech stack unless it names them; any other input as it is."""
    if prepared.from_run is None:
        return prepared, session_id
    found = await base_of(context.client, prepared.from_run, context.principal, context.settings.app_max_rounds)
    brief = prepared.brief.model_copy(
        update={
            "earlier_messages": prompt_messages(found.base.messages),
            "platform": prepared.brief.platform or found.brief.platform,
            "tech_stack": prepared.brief.tech_stack or found.brief.tech_stack,
        }
    )
    update = {"base": found.base, "from_run": None, "brief": brief}
    return prepared.model_copy(update=update), session_id or found.session_id


async def start_app(context: LaunchContext, prepared: BaseModel, session_id: str | None) -> RunTicket:
    """Start one app run owned by the principal that asked (a follow-up's base read first, unless the route did:
    `with_base`)."""
    assert isinstance(prepared, AppRunInput)
    prepared, session_id = await with_base(context, prepared, session_id)
    summary = f"app: {prepared.brief.message[:SUMMARY_CHARS]}"
    if prepared.base is not None:
        summary += f" (round {prepared.base.round + 1}, from {prepared.base.run_id})"
    return await start_run(context, prepared, session_id, prefix="app", summary=summary)


APP_RUN = Launcher(prepare=prepare_app, start=start_app)


async def _app_state(client: TemporalClient, run_id: str, principal: str) -> AppBuilderState:
    return await owned_state(client, run_id, principal, AppBuilderWorkflow.__name__, AppBuilderState, what="应用运行")


def _file_text(blobs: BlobStore, state: AppBuilderState, path: str) -> str | None:
    key = load_manifest(blobs, state.workspace).get(path)
    return read_text(blobs, key) if key is not None else None


GATEWAY = FamilyGateway(
    routers=(router, app_preview.router, rounds_router),
    launchers={APP_BUILDER.name: APP_RUN},
    capability_routers=(app_preview.previews,),
)
"""The app builder's routes (runs, their workspace and zip, their preview, their rounds and diff), and how its runs
start."""
