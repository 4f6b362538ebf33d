"""The writing assistant's conversation at the gateway: `POST /v1/writing/projects/{projectId}/chat` starts a
`WritingWorkflow` on the caller's project and streams its events as SSE (seed 002 Req 1.4: one unified stream);
the run id is in `X-Run-Id`, and the generic run API serves its state, events, input (a chain's choice) and
cancel. When the gateway is full the request waits for a place like any run (`api.admission`). A conversation
(`sessionId`) remembers its turns (`stores.writing_sessions`, recorded by the runs' activities);
`GET .../sessions/{sessionId}/turns` lists them."""

import asyncio
import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import StreamingResponse
from temporalio.client import Client

from api.admission import admitted_stream
from api.bodies import StrictJsonRoute
from api.deps import AppSettings, IdempotencyKey, Links, Principal, RunAdmission, TemporalClient
from api.errors import ApiError
from api.families import FamilyGateway
from api.launch import keyed_run_id, run_search_attributes, start_once
from api.routes import writing as projects
from api.routes import writing_chapters, writing_export, writing_proposals
from api.routes.writing import Projects, call_store
from models.runs import SESSION_ID_PATTERN
from models.settings import Settings
from models.writing.errors import WritingErrorCode
from models.writing.plans import chain_problem
from models.writing.runs import WritingChatRequest, WritingRunInput
from models.writing.sessions import SessionTurns
from stores.project_removal import ProjectRemoval
from stores.vector_stores import open_index_removal
from stores.writing_sessions import SessionStore
from stores.writing_stores import open_project_store, open_session_store
from workflows.writing.family import WRITING
from workflows.writing.workflow import WritingWorkflow

router = APIRouter(prefix="/v1/writing/projects", tags=["writing"], route_class=StrictJsonRoute)

SUMMARY_CHARS = 60


def session_store(request: Request) -> SessionStore:
    store: SessionStore = request.app.state.sessions
    return store


Sessions = Annotated[SessionStore, Depends(session_store)]


@router.post(
    "/{project_id}/chat",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "the run's events as SSE, ending with `done`"},
        404: {"description": "PROJECT_NOT_FOUND"},
        422: {"description": "INVALID_REQUEST, or CHAIN_CONTEXT_INVALID for a chainContext that cannot go on"},
    },
)
async def chat(
    project_id: str,
    body: WritingChatRequest,
    client: TemporalClient,
    settings: AppSettings,
    projects: Projects,
    principal: Principal,
    admission: RunAdmission,
    links: Links,
    idempotency_key: IdempotencyKey = None,
) -> StreamingResponse:
    """Ask the writing assistant about a project: the router picks the workflow; its events stream as SSE
    (`intent_recognized`, `workflow_preprocessing`, `preprocessing_task`, `agent_started`, `content`, ...,
    `done`). A chain that waits for the writer's choice emits `user_input_required`; answer it with
    `POST /v1/runs/{id}/input`. A `chainContext` (from a `chain_summary`) continues that chain."""
    await call_store(projects, projects.project, principal, project_id)  # 404 unless it is the caller's
    if body.chain_context is not None and (problem := chain_problem(body.chain_context)) is not None:
        raise ApiError(422, WritingErrorCode.CHAIN_CONTEXT_INVALID, problem)

    async def start() -> tuple[str, str | None]:
        run_id = await start_writing(client, settings, principal, project_id, body, idempotency_key)
        return run_id, body.session_id

    return await admitted_stream(admission, client, links.for_events(WRITING.events), start, principal)


@router.get(
    "/{project_id}/sessions/{session_id}/turns",
    responses={404: {"description": "PROJECT_NOT_FOUND"}, 422: {"description": "INVALID_REQUEST"}},
)
async def session_turns(
    project_id: str,
    session_id: Annotated[str, Path(pattern=SESSION_ID_PATTERN)],
    projects: Projects,
    sessions: Sessions,
    principal: Principal,
) -> SessionTurns:
    """The turns a conversation on the caller's project keeps, oldest first (none for a session it has not had:
    another principal's session of the same id is not read)."""
    await call_store(projects, projects.project, principal, project_id)  # 404 unless it is the caller's
    turns = await asyncio.to_thread(sessions.turns, principal, project_id, session_id)
    return SessionTurns(session_id=session_id, turns=turns)


async def start_writing(
    client: Client,
    settings: Settings,
    owner: str,
    project_id: str,
    body: WritingChatRequest,
    idempotency_key: str | None = None,
) -> str:
    """Start one writing run on `owner`'s project; its id (with an `Idempotency-Key`, the id the key stands for,
    and a run already started under it is the one)."""
    keyed = keyed_run_id("writing", owner, WritingWorkflow.__name__, idempotency_key)
    run_id = keyed or f"writing-{uuid.uuid4().hex[:16]}"
    run_input = WritingRunInput(
        owner=owner,
        project_id=project_id,
        text=body.text,
        session_id=body.session_id,
        chain_context=body.chain_context,
        llm_configured=settings.llm_provider is not None,
        deadline_seconds=settings.writing_run_deadline_seconds,
        input_timeout_seconds=settings.writing_input_timeout_hours * 3600,
    )
    await start_once(
        client,
        WritingWorkflow.__name__,
        run_input,
        run_id=run_id,
        keyed=keyed is not None,
        task_queue=settings.task_queue("writing"),
        search_attributes=run_search_attributes(owner, body.session_id),
        static_summary=f"writing on {project_id}: {body.text[:SUMMARY_CHARS]}",
    )
    return run_id


def _services(settings: Settings) -> dict[str, object]:
    """The stores the writing routes use, and the deletion of a project from all of them."""
    projects = open_project_store(settings)
    sessions = open_session_store(settings)
    removal = ProjectRemoval(projects, sessions, open_index_removal(settings))
    return {"projects": projects, "sessions": sessions, "project_removal": removal}


GATEWAY = FamilyGateway(
    routers=(projects.router, writing_chapters.router, writing_export.router, writing_proposals.router, router),
    services=lambda settings: _services(settings),
)
"""The writing family's routes: the writers' projects (`api.routes.writing`) and the conversation about them."""
