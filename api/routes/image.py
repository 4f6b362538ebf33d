"""`POST /api/agent/chat`: the seed's chat endpoint. Submits the message to the session and streams its run."""

import uuid

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from temporalio.client import WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy
from temporalio.exceptions import ApplicationError

from api.deps import AppSettings, BlobStore, TemporalClient
from api.errors import ApiError
from api.mask_intake import store_mask
from api.schemas import ChatRequest
from api.streaming import SSE_HEADERS, sse_stream
from models.agent import UserInput
from models.runs import ChatTurn, SessionInput, SessionSnapshot, TurnTicket
from workflows.search_attributes import SESSION_ID
from workflows.session import SessionWorkflow, session_workflow_id

router = APIRouter(tags=["image agent"])


@router.post(
    "/api/agent/chat",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "the run's events as SSE"}},
)
async def chat(body: ChatRequest, client: TemporalClient, settings: AppSettings, blobs: BlobStore) -> StreamingResponse:
    """Run one image-agent turn and stream its events; the run id is in the `X-Run-Id` header.

    Messages of one session run one at a time: a second message waits until the first has finished.
    """
    session_id = body.session_id or uuid.uuid4().hex[:12]
    mask = store_mask(body.mask_data, blobs) if body.mask_data else None
    user_input = UserInput(text=body.text, mask_data=mask, preferred_model=body.preferred_model)
    ticket = await _submit(client, settings, session_id, ChatTurn(user_input=user_input))
    return StreamingResponse(
        sse_stream(client, ticket.run_id),
        media_type="text/event-stream",
        headers=SSE_HEADERS | {"X-Run-Id": ticket.run_id, "X-Session-Id": session_id},
    )


async def _submit(client: TemporalClient, settings: AppSettings, session_id: str, turn: ChatTurn) -> TurnTicket:
    start = WithStartWorkflowOperation(
        SessionWorkflow.run,
        SessionInput(
            snapshot=SessionSnapshot(session_id=session_id),
            idle_timeout_seconds=settings.session_idle_minutes * 60,
            run_deadline_seconds=settings.run_deadline_seconds,
        ),
        id=session_workflow_id(session_id),
        task_queue=settings.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        search_attributes=TypedSearchAttributes([SearchAttributePair(SESSION_ID, session_id)]),
        static_summary=f"image-agent session {session_id}",
    )
    try:
        return await client.execute_update_with_start_workflow(
            SessionWorkflow.submit, turn, start_workflow_operation=start
        )
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type:
            raise ApiError(429, cause.type, cause.message) from err
        raise
