"""Edits of a finished post at the gateway (issue 29 item 3): `POST /v1/content/runs/{id}/edits` starts a
`ContentEditWorkflow` on the post of run `id` (a post's run or an earlier edit's) and streams its events as SSE;
`GET /v1/content/runs/{id}/versions` lists the post's versions from any of them.

The base is read when the edit starts: it must be the caller's (else 404 RUN_NOT_FOUND), have ended with a post
(409 POST_NOT_READY), and name a section or an image the post has (422 SECTION_NOT_FOUND, IMAGE_NOT_FOUND; a
request without what its action needs is EDIT_INVALID). Sections and images are numbered as the post shows them.

Versions: every version of a post shares its `creativeId`, and an edit's run id is derived from it and its version
(`content-edit-<creative>-v<n>`), so the versions of a post are found from any one of them, later ones included:
version 1 is the post's first run (named in each edit), then each edit's id in turn until one does not exist (the
oldest ones, which Temporal's retention deletes first, may be missing). An edit takes the next free version (the id
cannot be started twice), whichever version it edits."""

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel
from temporalio.client import WorkflowExecutionDescription
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from api.admission import admitted_stream
from api.bodies import StrictJsonRoute
from api.deps import AppSettings, Links, Principal, RunAdmission, TemporalClient
from api.errors import ApiError
from api.launch import LaunchContext, bound_start, run_search_attributes
from api.routes.content_export import finished_state, post_run
from api.routes.content_options import length_or_refused
from models.content.edits import (
    EDIT_ACTIONS,
    MAX_VERSIONS,
    ContentEditInput,
    ContentEditState,
    EditRecord,
    PostEdit,
    PostEditBody,
    PostVersion,
)
from models.content.errors import ContentErrorCode
from models.content.post import post_parts
from models.content.state import ContentState
from models.errors import ErrorCode
from models.runs import RunTicket
from models.search_attributes import INTENT_ACTION
from models.writing.language import written_in_english
from workflows.content.family import CONTENT_EDIT

router = APIRouter(prefix="/v1/content", tags=["content"], route_class=StrictJsonRoute)

START_ATTEMPTS = 3
"""Tries to take the next free version when another edit of the same post took it first."""


@router.post(
    "/runs/{run_id}/edits",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "the edit's events as SSE: `post_ready`, `done`"},
        404: {"description": "RUN_NOT_FOUND"},
        409: {"description": "POST_NOT_READY: the base still works or ended without a post"},
        422: {"description": "EDIT_INVALID, SECTION_NOT_FOUND, IMAGE_NOT_FOUND, LENGTH_UNKNOWN, VERSION_LIMIT_REACHED"},
    },
)
async def edit_post(
    run_id: str,
    body: PostEditBody,
    client: TemporalClient,
    settings: AppSettings,
    principal: Principal,
    admission: RunAdmission,
    links: Links,
) -> StreamingResponse:
    """Edit the finished post of run `run_id` as its own short run, the post's next version: `rewrite_section`
    (`section`, and `instruction` or your own `text`), `regenerate_image` (`image`, optional `instruction`) or
    `restyle` (the whole text again in a new `tone` and/or `length`: short, medium, long, 短 / 中 / 长). The
    events end with `post_ready` (the whole post, new version) and `done`; the run id is in `X-Run-Id`."""
    if body.action not in EDIT_ACTIONS:
        raise ApiError(
            422, ContentErrorCode.EDIT_INVALID, f"action「{body.action}」不是可用的编辑：可用 {', '.join(EDIT_ACTIONS)}"
        )
    base = await finished_state(client, run_id, principal)
    content = base.generated_content
    if content is None or not content.body.strip():
        message = f"运行 {run_id} 没有成品，不能编辑（the base run ended without a post）"
        raise ApiError(409, ContentErrorCode.POST_NOT_READY, message)
    brief = base.creative_brief
    record = EditRecord(
        version=0,
        base_run_id=run_id,
        origin_run_id=base.edit.origin_run_id if isinstance(base, ContentEditState) else run_id,
        edit=_resolved(body, base),
    )
    prepared = ContentEditInput(
        owner=principal,
        session_id=body.session_id,
        base=ContentState.model_validate(base.model_dump(exclude={"edit"})),
        record=record,
        topic=brief.topic if brief else content.title,
        platform=brief.platform if brief else None,
        tone=brief.tone if brief else None,
        hosted_models=settings.hosted_image_models,
        direct_models=settings.direct_image_models,
        allow_fallback=settings.allow_image_fallback,
        llm_configured=settings.llm_provider is not None,
    )
    context = LaunchContext(client=client, settings=settings, workflow=CONTENT_EDIT, principal=principal)
    start = bound_start(start_edit, context, prepared, body.session_id)
    return await admitted_stream(admission, client, links.for_events(CONTENT_EDIT.events), start, principal)


async def start_edit(context: LaunchContext, prepared: BaseModel, session_id: str | None) -> RunTicket:
    """Start the edit as the post's next free version."""
    assert isinstance(prepared, ContentEditInput)
    creative_id = prepared.base.creative_id
    edit = prepared.record.edit
    attributes = TypedSearchAttributes(
        [*run_search_attributes(context.principal, session_id), SearchAttributePair(INTENT_ACTION, edit.action)]
    )
    for _ in range(START_ATTEMPTS):
        versions = await _versions(context.client, prepared.record.origin_run_id, creative_id, context.principal)
        version = (versions[-1].version if versions else 1) + 1
        if version > MAX_VERSIONS:
            message = f"这篇帖子已有 {MAX_VERSIONS} 个版本，不能再编辑（at most {MAX_VERSIONS} versions）"
            raise ApiError(422, ContentErrorCode.VERSION_LIMIT_REACHED, message)
        run_id = edit_run_id(creative_id, version)
        run_input = prepared.model_copy(update={"record": prepared.record.model_copy(update={"version": version})})
        try:
            await context.client.start_workflow(
                CONTENT_EDIT.name,
                run_input,
                id=run_id,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                task_queue=context.settings.task_queue(CONTENT_EDIT.family),
                search_attributes=attributes,
                static_summary=f"content edit v{version}: {edit.action} of {prepared.record.base_run_id}",
            )
        except WorkflowAlreadyStartedError:
            continue  # another edit of this post took that version first
        return RunTicket(run_id=run_id, workflow=CONTENT_EDIT.name, session_id=session_id)
    raise ApiError(409, ContentErrorCode.EDIT_INVALID, "同一篇帖子同时有太多编辑，请稍后再试（too many edits at once）")


def edit_run_id(creative_id: str, version: int) -> str:
    """The run id of version `version` (2 and on) of the post `creative_id`."""
    return f"content-edit-{creative_id.removeprefix('content-')}-v{version}"


@router.get("/runs/{run_id}/versions", responses={404: {"description": "RUN_NOT_FOUND"}})
async def list_versions(run_id: str, client: TemporalClient, principal: Principal) -> JSONResponse:
    """The post's versions in order, from any version's run id: version 1 is the post's first run, then each
    edit (`runId`, `version`, `action`, `change`, `status`, `createdAt`, `baseRunId`, `applied`); `latest` is
    the last one's run id. `complete` is false when the first run is gone (Temporal's retention ended it)."""
    _, state = await post_run(client, run_id, principal)
    origin = state.edit.origin_run_id if isinstance(state, ContentEditState) else run_id
    versions = await _versions(client, origin, state.creative_id, principal)
    body: dict[str, Any] = {
        "runId": run_id,
        "creativeId": state.creative_id,
        "complete": bool(versions) and versions[0].version == 1,
        "latest": versions[-1].run_id if versions else run_id,
        "versions": [version.model_dump(mode="json", by_alias=True) for version in versions],
    }
    return JSONResponse(body)


async def _versions(client: TemporalClient, origin: str, creative_id: str, principal: str) -> list[PostVersion]:
    """The post's versions that still exist: its first run, then each edit's run in turn until one is missing. The
    oldest may be missing (Temporal's retention deletes closed runs oldest first): until one is found, a missing
    version is passed over, so the later ones are still listed and a new edit still takes the next number."""
    versions: list[PostVersion] = []
    for version in range(1, MAX_VERSIONS + 1):
        run_id = origin if version == 1 else edit_run_id(creative_id, version)
        try:
            description, state = await post_run(client, run_id, principal)
        except ApiError as err:
            if err.code != ErrorCode.RUN_NOT_FOUND:
                raise
            if not versions:
                continue
            break
        versions.append(_version_view(run_id, version, description, state))
    return versions


def _version_view(
    run_id: str, version: int, description: WorkflowExecutionDescription, state: ContentState
) -> PostVersion:
    status = description.status.name.lower() if description.status else "unknown"
    if isinstance(state, ContentEditState):
        record = state.edit
        return PostVersion(
            run_id=run_id,
            version=version,
            action=record.edit.action,
            change=record.change or "（编辑进行中）",
            status=status,
            created_at=state.metadata.start_time,
            base_run_id=record.base_run_id,
            applied=record.applied,
        )
    topic = state.creative_brief.topic if state.creative_brief else state.messages[0].content if state.messages else ""
    return PostVersion(
        run_id=run_id,
        version=1,
        action="create",
        change=(f"Original: {topic}" if written_in_english(topic) else f"原稿：{topic}")[:300],
        status=status,
        created_at=state.metadata.start_time,
    )


def _resolved(body: PostEditBody, base: ContentState) -> PostEdit:
    """The edit with the block or plan its number names in the base's post."""
    parts = post_parts(base)
    if body.action == "rewrite_section":
        if body.section is None or (body.instruction is None) == (body.text is None):
            message = "rewrite_section 需要 section，以及 instruction 或 text 二者之一（needs section and one of them）"
            raise ApiError(422, ContentErrorCode.EDIT_INVALID, message)
        texts = [part for section, part in parts if section.kind == "text"]
        if not 1 <= body.section <= len(texts):
            message = f"帖子只有 {len(texts)} 段文字，没有第 {body.section} 段（sections are numbered 1..{len(texts)}）"
            raise ApiError(422, ContentErrorCode.SECTION_NOT_FOUND, message)
        block = texts[body.section - 1]
        return PostEdit(
            action="rewrite_section", section=body.section, block_id=block, instruction=body.instruction, text=body.text
        )
    if body.action == "restyle":
        if (body.tone is None and body.length is None) or body.text is not None or body.instruction is not None:
            message = "restyle 需要 tone 或 length（或两者），不带 text 和 instruction（needs tone and/or length）"
            raise ApiError(422, ContentErrorCode.EDIT_INVALID, message)
        length = length_or_refused(body.length)
        return PostEdit(action="restyle", tone=body.tone, length=length, length_words=body.length)
    if body.image is None or body.text is not None:
        message = "regenerate_image 需要 image（第几张图），可带 instruction，不带 text（needs image）"
        raise ApiError(422, ContentErrorCode.EDIT_INVALID, message)
    images = [part for section, part in parts if section.kind == "image"]
    if not 1 <= body.image <= len(images):
        message = f"帖子只有 {len(images)} 张图，没有第 {body.image} 张（images are numbered 1..{len(images)}）"
        raise ApiError(422, ErrorCode.IMAGE_NOT_FOUND, message)
    return PostEdit(
        action="regenerate_image", image=body.image, plan_id=images[body.image - 1], instruction=body.instruction
    )
