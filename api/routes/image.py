"""The image agent at the gateway: the seed's `POST /api/agent/chat`, and the launcher `POST /v1/runs` uses for
`ImageAgentWorkflow`. Both submit the message to its session and stream (or name) the turn's run."""

import asyncio
import uuid

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from pydantic import BaseModel
from temporalio.client import Client, WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy
from temporalio.exceptions import ApplicationError

from api.deps import AppSettings, BlobStore, TemporalClient
from api.errors import ApiError
from api.launch import LaunchContext
from api.mask_intake import store_mask
from api.streaming import SSE_HEADERS, sse_stream
from models.image.requests import ChatRequest, ImageRunInput
from models.image.runs import ChatTurn, SessionInput, SessionSnapshot, TurnTicket
from models.image.state import UserInput
from models.runs import RunTicket
from models.settings import Settings
from stores.blob_store import LocalBlobStore
from workflows.common.search_attributes import SESSION_ID
from workflows.image.session import ImageSessionWorkflow, session_workflow_id

router = APIRouter(tags=["image agent"])


@router.post(
    "/api/agent/chat",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "the run's events as SSE"}},
)
async def chat(body: ChatRequest, client: TemporalClient, settings: AppSettings, blobs: BlobStore) -> StreamingResponse:
    """Run one image-agent turn and stream its events; the run id is in the `X-Run-Id` header.

    Messages of one session run one at a time: a message sent while another runs gets its headers at once and a
    `queued` event with its position, then its run's events when its turn comes.
    """
    ticket = await submit_turn(client, settings, blobs, body, body.session_id)
    return StreamingResponse(
        sse_stream(client, ticket.run_id, settings.base_url, starting=True),
        media_type="text/event-stream",
        headers=SSE_HEADERS | {"X-Run-Id": ticket.run_id, "X-Session-Id": ticket.session_id},
    )


async def launch_turn(context: LaunchContext, run_input: BaseModel, session_id: str | None) -> RunTicket:
    """`POST /v1/runs` for `ImageAgentWorkflow`: one turn in the given session (a new session without one)."""
    assert isinstance(run_input, ImageRunInput)
    ticket = await submit_turn(context.client, context.settings, context.blobs, run_input, session_id)
    return RunTicket(
        run_id=ticket.run_id, workflow=context.workflow.name, session_id=ticket.session_id, position=ticket.position
    )


async def submit_turn(
    client: Client, settings: Settings, blobs: LocalBlobStore, message: ImageRunInput, session_id: str | None
) -> TurnTicket:
    """Store the mask (claim check, in a thread), then submit the message to its session (created on first use)."""
    session_id = session_id or uuid.uuid4().hex[:12]
    mask = await asyncio.to_thread(store_mask, message.mask_data, blobs) if message.mask_data else None
    turn = ChatTurn(user_input=UserInput(text=message.text, mask_data=mask, preferred_model=message.preferred_model))
    start = WithStartWorkflowOperation(
        ImageSessionWorkflow.run,
        SessionInput(
            snapshot=SessionSnapshot(session_id=session_id),
            idle_timeout_seconds=settings.session_idle_minutes * 60,
            run_deadline_seconds=settings.run_deadline_seconds,
        ),
        id=session_workflow_id(session_id),
        task_queue=settings.task_queue("image"),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        search_attributes=TypedSearchAttributes([SearchAttributePair(SESSION_ID, session_id)]),
        static_summary=f"image-agent session {session_id}",
    )
    try:
        return await client.execute_update_with_start_workflow(
            ImageSessionWorkflow.submit, turn, start_workflow_operation=start
        )
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type:
            raise ApiError(429, cause.type, cause.message) from err
        raise
