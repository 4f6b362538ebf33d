"""Content creation at the gateway (seed 001): `POST /v1/content/runs` starts a `ContentSupervisorWorkflow` and
streams its events as SSE (run id in `X-Run-Id`); `GET /v1/content/runs/{id}/post` returns the finished post with
its image URLs in place. The generic run API serves the run's state, its clarification answers
(`POST /v1/runs/{id}/input`), cancel and the graph; `POST /v1/runs` starts the same run through `CONTENT_RUN`.

Reference images are URLs this gateway issued (`POST /v1/blobs`): each becomes its blob key again and must be an
image; the user's evidence notes are stored as one blob. Both happen before the run starts (the claim check).

A new post can start from an earlier one of the caller's (`fromRun`, a post run or an edit run that ended): it takes
that post's notes, reference images, platform, tone and layout where the request leaves them out, and its session
when the request names none."""

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel
from temporalio.client import WorkflowExecutionDescription

from api.admission import admitted_stream
from api.bodies import StrictJsonRoute
from api.deps import AppSettings, IdempotencyKey, Links, Preparation, Principal, RunAdmission, TemporalClient
from api.errors import ApiError
from api.families import FamilyGateway
from api.launch import LaunchContext, Launcher, PrepareContext, bound_start, start_run
from api.routes import content_edits, content_export
from api.routes.content_export import finished_post_run, finished_state
from api.routes.content_options import layout_or_refused, length_or_refused
from imaging.rendering import ImageDecodeError, decode_image
from models.blobs import blob_ref
from models.content.errors import ContentErrorCode
from models.content.options import TONE_CHARS
from models.content.post import assemble_post
from models.content.runs import ContentRunBody, ContentRunInput, ContentRunRequest
from models.content.state import ContentState
from models.runs import RunTicket
from models.search_attributes import SESSION_ID
from stores.blob_store import BlobNotFoundError
from stores.evidence import store_notes
from workflows.content.family import CONTENT_SUPERVISOR

router = APIRouter(prefix="/v1/content", tags=["content"], route_class=StrictJsonRoute)

SUMMARY_CHARS = 60


@router.post(
    "/runs",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "the run's events as SSE, ending with `done`"},
        422: {
            "description": "INVALID_REQUEST, REFERENCE_IMAGE_INVALID for a reference this gateway did not issue, "
            "LAYOUT_PREFERENCE_UNKNOWN or LENGTH_UNKNOWN for words that name no layout or length"
        },
        404: {"description": "RUN_NOT_FOUND: `fromRun` names no post of the caller's"},
        409: {"description": "POST_NOT_READY: `fromRun` names a post that still works"},
    },
)
async def start_content_run(
    body: ContentRunBody,
    client: TemporalClient,
    settings: AppSettings,
    preparation: Preparation,
    principal: Principal,
    admission: RunAdmission,
    links: Links,
    idempotency_key: IdempotencyKey = None,
) -> StreamingResponse:
    """Make a post (text and generated images) for a topic: the Supervisor routes the agents; the events stream as
    SSE (`supervisor_decision`, `agent_started`, `tool_call`, `image_generated`, `review_result`, `post_ready`, ...,
    `done`). A clarification arrives as `user_input_required`: answer it with `POST /v1/runs/{id}/input`. With
    `fromRun`, the post starts from an earlier one's notes, references, platform, tone, layout and session."""
    earlier = await finished_post_run(client, body.from_run, principal) if body.from_run else None
    if earlier is not None:
        body = _with_earlier(body, *earlier)
    prepared = await asyncio.to_thread(prepare_content, body, preparation)
    if earlier is not None:
        prepared = _with_earlier_material(prepared, body, earlier[1])
    context = LaunchContext(client, settings, CONTENT_SUPERVISOR, principal, idempotency_key)
    start = bound_start(start_content, context, prepared, body.session_id)
    events = links.for_events(CONTENT_SUPERVISOR.events)
    return await admitted_stream(
        admission, client, events, start, principal, session_header=body.session_id is not None
    )


@router.get(
    "/runs/{run_id}/post",
    responses={404: {"description": "RUN_NOT_FOUND"}, 409: {"description": "POST_NOT_READY while the run works"}},
)
async def get_post(run_id: str, client: TemporalClient, principal: Principal, links: Links) -> JSONResponse:
    """The finished post: title, sections in layout order (text blocks, images by URL), hashtags, quality scores,
    whether it is complete and why the run ended."""
    state = await finished_state(client, run_id, principal)
    return JSONResponse(await asyncio.to_thread(links.present, assemble_post(state)))


def _with_earlier(
    body: ContentRunBody, description: WorkflowExecutionDescription, state: ContentState
) -> ContentRunBody:
    """The request with the earlier post's platform, tone, layout and session where it left them out."""
    brief = state.creative_brief
    session = description.typed_search_attributes.get(SESSION_ID)
    return body.model_copy(
        update={
            "platform": body.platform or (brief.platform if brief else None),
            "tone": body.tone or (brief.tone[:TONE_CHARS] if brief else None),
            "layout_preference": body.layout_preference or state.layout_preference,
            "session_id": body.session_id or session,
        }
    )


def _with_earlier_material(prepared: ContentRunInput, body: ContentRunBody, state: ContentState) -> ContentRunInput:
    """The run's input with the earlier post's reference images and notes where the request gave none (both were
    checked and stored when that post started, for the same principal)."""
    update: dict[str, object] = {"from_run": body.from_run}
    if not body.reference_images:
        update["reference_images"] = list(state.reference_images)
    if not body.evidence and state.metadata.evidence_notes_ref:
        update["evidence_notes_ref"] = state.metadata.evidence_notes_ref
    return prepared.model_copy(update=update)


def prepare_content(run_input: BaseModel, context: PrepareContext) -> ContentRunInput:
    """The request with its reference images as blob keys (each checked to be an image this gateway issued) and
    its evidence notes stored; the owner is set when the run starts. Blocking: runs in a thread or the intake."""
    assert isinstance(run_input, ContentRunRequest)
    references = [blob_ref(_reference_key(url, index, context)) for index, url in enumerate(run_input.reference_images)]
    settings = context.settings
    return ContentRunInput(
        owner="",
        topic=run_input.topic,
        platform=run_input.platform,
        reference_images=references,
        evidence_notes_ref=store_notes(context.blobs, run_input.evidence) if run_input.evidence else None,
        evidence_notes=len(run_input.evidence),
        layout_preference=layout_or_refused(run_input.layout_preference),
        layout_words=run_input.layout_preference,
        tone=run_input.tone,
        length=length_or_refused(run_input.length),
        length_words=run_input.length,
        image_gen_provider=run_input.image_gen_provider or settings.default_image_model or "local",
        hosted_models=settings.hosted_image_models,
        direct_models=settings.direct_image_models,
        allow_fallback=settings.allow_image_fallback if run_input.allow_fallback is None else run_input.allow_fallback,
        max_iterations=run_input.max_iterations or settings.content_max_iterations,
        max_clarification_rounds=settings.content_max_clarifications,
        llm_configured=settings.llm_provider is not None,
        deadline_seconds=settings.content_run_deadline_seconds,
        input_timeout_seconds=settings.content_input_timeout_hours * 3600,
    )


async def start_content(context: LaunchContext, prepared: BaseModel, session_id: str | None) -> RunTicket:
    """Start one content run owned by the principal that asked."""
    assert isinstance(prepared, ContentRunInput)
    summary = f"content: {prepared.topic[:SUMMARY_CHARS]}"
    return await start_run(context, prepared, session_id, prefix="content", summary=summary)


CONTENT_RUN = Launcher(prepare=prepare_content, start=start_content)


def _reference_key(url: str, index: int, context: PrepareContext) -> str:
    key = context.links.own_key(url)
    if key is None:
        raise ApiError(
            422,
            ContentErrorCode.REFERENCE_IMAGE_INVALID,
            f"referenceImages[{index}] 不是本服务签发的图片 URL：先用 POST /v1/blobs 上传"
            "（not a URL this gateway issued）",
        )
    try:
        decode_image(context.blobs.get(key))
    except (BlobNotFoundError, ImageDecodeError) as err:
        raise ApiError(
            422, ContentErrorCode.REFERENCE_IMAGE_INVALID, f"referenceImages[{index}] 不是可解码的图片（not an image）"
        ) from err
    return key


GATEWAY = FamilyGateway(
    routers=(router, content_export.router, content_edits.router), launchers={CONTENT_SUPERVISOR.name: CONTENT_RUN}
)
"""The content family's routes (runs, exports, edits), and how its runs start (evidence and references stored
first)."""
