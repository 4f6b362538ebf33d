"""The image agent at the gateway: the seed's `POST /api/agent/chat`, and the launcher `POST /v1/runs` uses for
`ImageAgentWorkflow`. Both prepare the message in the intake process (the mask's claim check), then submit it to
its session and stream (or name) the turn's run."""

import uuid
from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel
from temporalio.client import Client, WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy
from temporalio.exceptions import ApplicationError

from api.admission import admitted_stream
from api.bodies import StrictJsonRoute, body_chunks, documented, parse_body
from api.deps import (
    AppSettings,
    IdempotencyKey,
    Preparation,
    Principal,
    RequestIntake,
    RunAdmission,
    TemporalClient,
)
from api.errors import ApiError
from api.families import FamilyGateway
from api.launch import LaunchContext, Launcher, PrepareContext, keyed_run_id
from api.mask_intake import store_mask
from models.image.errors import ImageErrorCode
from models.image.requests import ChatRequest, ImageRunInput
from models.image.runs import ChatTurn, SessionInput, SessionSnapshot, TurnTicket
from models.image.state import UserInput
from models.runs import RunTicket
from models.search_attributes import OWNER, SESSION_ID
from models.settings import Settings
from workflows.image.family import IMAGE_AGENT
from workflows.image.session import ImageSessionWorkflow, session_workflow_id

router = APIRouter(tags=["image agent"], route_class=StrictJsonRoute)


@router.post(
    "/api/agent/chat",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "the run's events as SSE"}},
    openapi_extra=documented(ChatRequest),
)
async def chat(
    request: Request,
    client: TemporalClient,
    settings: AppSettings,
    preparation: Preparation,
    intake: RequestIntake,
    principal: Principal,
    admission: RunAdmission,
    idempotency_key: IdempotencyKey = None,
) -> StreamingResponse:
    """Run one image-agent turn and stream its events; the run id is in the `X-Run-Id` header.

    Messages of one session run one at a time: a message sent while another runs gets its headers at once and a
    `queued` event with its position, then its run's events when its turn comes. When the gateway is full (see
    `api.admission`) a message waits for a place: `queued` events without an id, then `admitted` with its run id.
    """
    message = await intake.run(prepare_chat, await body_chunks(request), preparation)

    async def start() -> tuple[str, str | None]:
        ticket = await submit_turn(client, settings, message.user_input, message.session_id, principal, idempotency_key)
        return ticket.run_id, ticket.session_id

    return await admitted_stream(
        admission, client, preparation.links.for_events(IMAGE_AGENT.events), start, principal, session_header=True
    )


@dataclass(frozen=True)
class PreparedChat:
    """A chat message ready to submit: its session (if it named one) and its input with the mask by reference."""

    session_id: str | None
    user_input: UserInput


def prepare_chat(chunks: list[bytes], context: PrepareContext) -> PreparedChat:
    """In the intake process: the chat body parsed and validated, its mask stored."""
    body = parse_body(ChatRequest, chunks)
    return PreparedChat(session_id=body.session_id, user_input=prepare_turn(body, context))


def prepare_turn(run_input: BaseModel, context: PrepareContext) -> UserInput:
    """In the intake process: one message's mask checked and stored (claim check); the run gets its keys."""
    assert isinstance(run_input, ImageRunInput)
    mask = None
    if run_input.mask_data:
        allow = context.settings.allow_external_images
        mask = store_mask(run_input.mask_data, context.blobs, context.links, allow_external_images=allow)
    return UserInput(
        text=run_input.text,
        mask_data=mask,
        preferred_model=run_input.preferred_model,
        allow_fallback=run_input.allow_fallback,
    )


async def start_turn(context: LaunchContext, prepared: BaseModel, session_id: str | None) -> RunTicket:
    """`POST /v1/runs` for `ImageAgentWorkflow`: one turn in the given session (a new session without one)."""
    assert isinstance(prepared, UserInput)
    ticket = await submit_turn(
        context.client, context.settings, prepared, session_id, context.principal, context.idempotency_key
    )
    return RunTicket(
        run_id=ticket.run_id, workflow=context.workflow.name, session_id=ticket.session_id, position=ticket.position
    )


IMAGE_TURN = Launcher(prepare=prepare_turn, start=start_turn)


async def submit_turn(
    client: Client,
    settings: Settings,
    user_input: UserInput,
    session_id: str | None,
    owner: str,
    idempotency_key: str | None = None,
) -> TurnTicket:
    """Submit a message to its owner's session (created on first use); the session answers at once with the
    turn's run. With an `Idempotency-Key` the message is the session's update of that key's id (and a new session,
    its id from the key too): the server answers a retry with the first one's turn, so nothing is drawn twice."""
    update_id = keyed_run_id("turn", owner, IMAGE_AGENT.name, idempotency_key)
    session_id = session_id or (update_id[-12:] if update_id else uuid.uuid4().hex[:12])
    start = WithStartWorkflowOperation(
        ImageSessionWorkflow.run,
        SessionInput(
            snapshot=SessionSnapshot(session_id=session_id),
            owner=owner,
            idle_timeout_seconds=settings.session_idle_minutes * 60,
            run_deadline_seconds=settings.run_deadline_seconds,
            llm_configured=settings.llm_provider is not None,
            hosted_models=settings.hosted_image_models,
            direct_models=settings.direct_image_models,
            default_model=settings.default_image_model,
            allow_fallback=settings.allow_image_fallback,
        ),
        id=session_workflow_id(owner, session_id),
        task_queue=settings.task_queue("image"),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        search_attributes=TypedSearchAttributes(
            [SearchAttributePair(OWNER, owner), SearchAttributePair(SESSION_ID, session_id)]
        ),
        static_summary=f"image-agent session {session_id}",
    )
    try:
        return await client.execute_update_with_start_workflow(
            ImageSessionWorkflow.submit,
            ChatTurn(user_input=user_input, owner=owner),
            start_workflow_operation=start,
            id=update_id,
        )
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type:
            status = 409 if cause.type == ImageErrorCode.SESSION_UNAVAILABLE else 429
            raise ApiError(status, cause.type, cause.message) from err
        raise


GATEWAY = FamilyGateway(routers=(router,), launchers={IMAGE_AGENT.name: IMAGE_TURN})
"""The image family's chat route, and how its turns start (through the session) from `POST /v1/runs` too."""
