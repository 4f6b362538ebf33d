"""The generic run API every family shares: start, list, state, events (SSE, resumable), input, cancel.

Built per registry (`build_router`), so `GET /v1/runs/{id}` documents each workflow's own state model in the
OpenAPI schema, told apart by `workflowType`.
"""

import asyncio
import base64
import binascii
from typing import Annotated, Any, Literal, TypeVar, Union

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, Field, create_model
from temporalio.client import (
    Client,
    WorkflowExecutionDescription,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from api.admission import queued_then_streamed, start_admitted
from api.bodies import StrictJsonRoute, body_chunks, documented
from api.body_limits import ENVELOPE_BYTES, largest_json_of
from api.deps import (
    AppSettings,
    IdempotencyKey,
    Links,
    Preparation,
    Principal,
    RequestIntake,
    RunAdmission,
    RunLaunchers,
    TemporalClient,
    WorkflowRegistry,
)
from api.errors import QUERY_TIMEOUT, RETRY_TEMPORAL_SECONDS, ApiError, temporal_unavailable, unanswered
from api.launch import LaunchContext, Launcher, prepare_run, registered
from api.streaming import MAX_EVENT_ID, SSE_HEADERS, sse_stream
from models.base import CamelModel
from models.errors import ErrorCode
from models.human_input import AwaitingInput, InputAnswer, ReceivedAnswer
from models.runs import SESSION_ID_PATTERN, ListedStatus, RunPage, RunStartRequest, RunSummary, RunTicket
from models.search_attributes import OWNER, RUN_STATUS, SESSION_ID
from workflows.common.human_input import AWAITING_QUERY, INPUT_UPDATE
from workflows.common.registration import Registry

StateT = TypeVar("StateT", bound=BaseModel)

ENDED = ("completed", "failed", "timeout", "cancelled")
_CLOSED_STATUS: dict[WorkflowExecutionStatus, ListedStatus] = {
    WorkflowExecutionStatus.COMPLETED: "completed",
    WorkflowExecutionStatus.FAILED: "failed",
    WorkflowExecutionStatus.CANCELED: "cancelled",
    WorkflowExecutionStatus.TERMINATED: "terminated",
    WorkflowExecutionStatus.TIMED_OUT: "timeout",
}
CLIENT_GONE = 499
"""The status logged for a request whose client hung up before it was answered (nobody reads it)."""
_INPUT_REFUSALS = {ErrorCode.INPUT_NOT_AN_OPTION: 422}
"""HTTP status for a refused answer's code; every other refusal is a 409 conflict with the run's state."""


class RunViewBase(CamelModel):
    """`GET /v1/runs/{id}`: Temporal's view of the run, its question if it waits for one, and its typed state."""

    run_id: str
    workflow_type: str
    status: str
    start_time: Any = None
    close_time: Any = None
    awaiting_input: AwaitingInput | None = None


def run_view_model(registry: Registry) -> Any:
    """One view model per registered workflow (its state typed), discriminated by `workflowType`."""
    variants: list[type[BaseModel]] = []
    for entry in registry:
        fields: dict[str, Any] = {
            "workflow_type": (Literal[entry.name], ...),
            "state": (entry.state_model | None, None),
        }
        variants.append(create_model(f"{entry.name}Run", __base__=RunViewBase, **fields))
    if len(variants) == 1:
        return variants[0]
    return Annotated[Union[tuple(variants)], Field(discriminator="workflow_type")]  # noqa: UP007


def run_start_limit(registry: Registry) -> int:
    """`POST /v1/runs`'s body limit: the largest body naming any workflow it starts, with that workflow's largest
    input (`RunStartRequest` takes `input` as any object; the workflow's input model bounds it)."""
    largest = 0
    for entry in registry:
        if entry.input_model is not None:
            fields: dict[str, Any] = {"workflow": (Literal[entry.name], ...), "input": (entry.input_model, ...)}
            body = create_model(f"{entry.name}Start", __base__=RunStartRequest, **fields)
            largest = max(largest, largest_json_of(body))
    return ENVELOPE_BYTES + largest


def build_router(registry: Registry) -> APIRouter:
    router = APIRouter(tags=["runs"], route_class=StrictJsonRoute)
    run_view = run_view_model(registry)

    @router.post(
        "/v1/runs",
        status_code=201,
        response_model=RunTicket,
        responses={200: {"content": {"text/event-stream": {}}, "description": "with Accept: text/event-stream"}},
        openapi_extra=documented(RunStartRequest, max_bytes=run_start_limit(registry)),
    )
    async def start_run(
        request: Request,
        client: TemporalClient,
        settings: AppSettings,
        preparation: Preparation,
        intake: RequestIntake,
        workflows: WorkflowRegistry,
        launchers: RunLaunchers,
        principal: Principal,
        admission: RunAdmission,
        idempotency_key: IdempotencyKey = None,
    ) -> Response:
        """Start a run of any registered workflow; `input` is validated against that workflow's input model.

        Answers 201 with the run id, or streams the run's events (SSE) when the client accepts
        `text/event-stream`; the run id is then in the `X-Run-Id` header. When the gateway is full (see
        `api.admission`) the request waits for a place: a stream gets `queued` events, then `admitted` with the run
        id; a plain request is answered once its run has started, and starts none if it hung up meanwhile.
        """
        run = await intake.run(prepare_run, await body_chunks(request), workflows, launchers, preparation)
        entry = registered(workflows, run.workflow)
        launcher = launchers.get(entry.name, Launcher())
        streamed = "text/event-stream" in request.headers.get("accept", "")
        place = admission.enter(principal)
        tickets: list[RunTicket] = []

        async def start() -> tuple[str, str | None]:
            context = LaunchContext(client, settings, entry, principal, idempotency_key)
            tickets.append(await launcher.start(context, run.prepared, run.session_id))
            return tickets[0].run_id, tickets[0].session_id

        if streamed and not place.admitted.is_set():
            return StreamingResponse(
                queued_then_streamed(admission, place, client, start, preparation.links.for_events(entry.events)),
                media_type="text/event-stream",
                headers=SSE_HEADERS,
            )
        if not await admission.wait_unless_gone(place, request):
            return Response(status_code=CLIENT_GONE)
        await start_admitted(admission, place, client, start)
        ticket = tickets[0]
        headers = {"X-Run-Id": ticket.run_id, "Location": f"/v1/runs/{ticket.run_id}"}
        if ticket.session_id:
            headers["X-Session-Id"] = ticket.session_id
        if streamed:
            return StreamingResponse(
                sse_stream(client, ticket.run_id, preparation.links.for_events(entry.events), starting=True),
                media_type="text/event-stream",
                headers=SSE_HEADERS | headers,
            )
        return JSONResponse(ticket.model_dump(mode="json", by_alias=True), status_code=201, headers=headers)

    @router.get("/v1/runs", response_model=RunPage)
    async def list_runs(
        client: TemporalClient,
        workflows: WorkflowRegistry,
        principal: Principal,
        workflow: Annotated[str | None, Query(description="a registered workflow's name")] = None,
        session_id: Annotated[str | None, Query(alias="sessionId", pattern=SESSION_ID_PATTERN)] = None,
        status: Annotated[ListedStatus | None, Query()] = None,
        page_size: Annotated[int, Query(alias="pageSize", ge=1, le=100)] = 20,
        page_token: Annotated[str | None, Query(alias="pageToken", max_length=4096)] = None,
    ) -> RunPage:
        """The caller's runs newest first, through Temporal visibility (search attributes), one page at a time."""
        names = [registered(workflows, workflow).name] if workflow else [entry.name for entry in workflows]
        pages = client.list_workflows(
            _visibility_query(principal, names, session_id, status),
            page_size=page_size,
            next_page_token=_decode_token(page_token),
        )
        try:
            await pages.fetch_next_page()
        except RPCError as err:
            # Temporal answers a token it cannot read with INVALID_ARGUMENT, or (the dev server) UNKNOWN.
            refused = err.status in (RPCStatusCode.INVALID_ARGUMENT, RPCStatusCode.UNKNOWN)
            if refused and page_token is not None and not temporal_unavailable(err):
                raise ApiError(422, ErrorCode.INVALID_REQUEST, "pageToken 无效（not a token this API issued）") from err
            raise
        runs = [
            RunSummary(
                run_id=execution.id,
                workflow=execution.workflow_type,
                status=_listed_status(execution.status, execution.typed_search_attributes.get(RUN_STATUS)),
                session_id=execution.typed_search_attributes.get(SESSION_ID),
                start_time=execution.start_time,
                close_time=execution.close_time,
            )
            for execution in pages.current_page or []
        ]
        token = pages.next_page_token
        return RunPage(runs=runs, next_page_token=base64.urlsafe_b64encode(token).decode() if token else None)

    @router.get("/v1/runs/{run_id}", response_model=run_view)
    async def get_run(
        run_id: str, client: TemporalClient, links: Links, workflows: WorkflowRegistry, principal: Principal
    ) -> Response:
        """The run's status (as `GET /v1/runs` lists it: the run's own outcome, `waiting` while it asks a person), the
        question it waits on, and the workflow's typed `state` (seed field names)."""
        handle, description = await owned_run(client, run_id, principal)
        entry = registered(workflows, description.workflow_type, run_id)
        state = await answered(handle, "state", entry.state_model)
        asked = await answered(handle, AWAITING_QUERY, None) if entry.human_input else None
        awaiting = AwaitingInput.model_validate(asked) if asked else None
        status = _listed_status(description.status, description.typed_search_attributes.get(RUN_STATUS))
        if status in ("running", "waiting"):  # the query is newer than the search attribute the task upserts
            status = "waiting" if awaiting else "running"
        view = {
            "runId": run_id,
            "workflowType": entry.name,
            "status": status,
            "startTime": description.start_time.isoformat() if description.start_time else None,
            "closeTime": description.close_time.isoformat() if description.close_time else None,
            "awaitingInput": awaiting.model_dump(mode="json", by_alias=True) if awaiting else None,
            "state": await asyncio.to_thread(links.present, state),
        }
        return JSONResponse(view)

    @router.get(
        "/v1/runs/{run_id}/events",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}}},
    )
    async def run_events(
        run_id: str,
        client: TemporalClient,
        links: Links,
        workflows: WorkflowRegistry,
        principal: Principal,
        last_event_id: Annotated[int | None, Header(ge=0, le=MAX_EVENT_ID, description="resume after it")] = None,
        after: Annotated[int | None, Query(ge=-1, le=MAX_EVENT_ID, description="resume after this event id")] = None,
    ) -> StreamingResponse:
        """Join a run's event stream, or resume it: with `Last-Event-ID: n` (or `?after=n`) events n+1… follow.

        `?after=` wins over the header; an id that is not a whole number from 0 (`?after=-1`: from the start) to
        2^53 - 1 is refused (422 `INVALID_REQUEST`)."""
        _, description = await owned_run(client, run_id, principal)
        entry = registered(workflows, description.workflow_type, run_id)
        if entry.events is None:
            raise ApiError(409, ErrorCode.NO_EVENT_STREAM, f"{entry.name} 没有事件流（it streams no events）")
        offset = 1 + (after if after is not None else last_event_id if last_event_id is not None else -1)
        return StreamingResponse(
            sse_stream(client, run_id, links.for_events(entry.events), offset),
            media_type="text/event-stream",
            headers=SSE_HEADERS,
        )

    @router.post("/v1/runs/{run_id}/input", response_model=ReceivedAnswer)
    async def answer_run(
        run_id: str,
        body: InputAnswer,
        request: Request,
        client: TemporalClient,
        workflows: WorkflowRegistry,
        principal: Principal,
        admission: RunAdmission,
        idempotency_key: IdempotencyKey = None,
    ) -> Response:
        """Answer the question a run waits on: an offered option's id, or free text where the question allows it.

        409 when the run is not waiting (or asks something else now, or the question expired), 422 when the
        answer is not one of the offered options. The answered run works again, so the answer first takes a place
        for it (see `api.admission`): when the gateway or the caller's share is full it waits in line (429
        `RUNS_BUSY` or `TOO_MANY_RUNS` when the line is full too), and one whose client hung up meanwhile is not
        delivered.
        """
        handle, description = await owned_run(client, run_id, principal)
        entry = registered(workflows, description.workflow_type, run_id)
        _require_running(description)
        if not entry.human_input:
            raise ApiError(409, ErrorCode.RUN_NOT_WAITING, f"{entry.name} 从不等待回答（never asks for input）")
        place = admission.enter(principal)
        if not await admission.wait_unless_gone(place, request):
            return Response(status_code=CLIENT_GONE)
        try:
            received: ReceivedAnswer = await deliver_answer(handle, body)
        except BaseException:
            admission.leave(place)
            raise
        admission.resume(run_id, place)
        return JSONResponse(received.model_dump(mode="json", by_alias=True))

    @router.post("/v1/runs/{run_id}/cancel", status_code=202)
    async def cancel_run(run_id: str, client: TemporalClient, principal: Principal) -> dict[str, str]:
        """Ask a running run to stop: it ends through its error path with a CANCELLED error and its terminal event."""
        handle, description = await owned_run(client, run_id, principal)
        _require_running(description)
        await handle.cancel()
        return {"runId": run_id, "status": "cancel_requested"}

    return router


async def owned_run(
    client: Client, run_id: str, principal: str
) -> tuple[WorkflowHandle[Any, Any], WorkflowExecutionDescription]:
    """The run and Temporal's description of it, if `principal` owns it: anyone else gets the same 404 as for a
    run that does not exist, so ids tell nothing about other principals' runs."""
    handle = client.get_workflow_handle(run_id)
    missing = ApiError(404, ErrorCode.RUN_NOT_FOUND, f"没有这个运行：{run_id}")
    try:
        description = await handle.describe()
    except RPCError as err:
        if err.status in (RPCStatusCode.NOT_FOUND, RPCStatusCode.INVALID_ARGUMENT):
            raise missing from err
        raise
    if description.typed_search_attributes.get(OWNER) != principal:
        raise missing
    return handle, description


async def owned_state(
    client: Client, run_id: str, principal: str, workflow: str, state_type: type[StateT], *, what: str
) -> StateT:
    """The state of `principal`'s run `run_id` of `workflow`; any other run is the same 404 as a missing one
    (`what` names the kind of run in the message)."""
    handle, description = await owned_run(client, run_id, principal)
    if description.workflow_type != workflow:
        raise ApiError(404, ErrorCode.RUN_NOT_FOUND, f"没有这个{what}：{run_id}")
    state: StateT = await answered(handle, "state", state_type)
    return state


async def deliver_answer(handle: WorkflowHandle[Any, Any], body: InputAnswer) -> ReceivedAnswer:
    """The run's `input` update with `body`; its validator's refusal as the API error of its code."""
    try:
        received: ReceivedAnswer = await handle.execute_update(INPUT_UPDATE, body, result_type=ReceivedAnswer)
    except WorkflowUpdateFailedError as err:
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type and cause.type in ErrorCode.__members__:
            code = ErrorCode(cause.type)
            raise ApiError(_INPUT_REFUSALS.get(code, 409), code, cause.message) from err
        raise
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:  # it closed between the describe and the update
            raise ApiError(409, ErrorCode.RUN_ALREADY_CLOSED, "运行已结束，无法回答") from err
        raise
    return received


async def answered(handle: WorkflowHandle[Any, Any], query: str, result_type: type[Any] | None) -> Any:
    """A run's query, answered by a worker within `QUERY_TIMEOUT`; when none answers (the run's worker was killed
    and no other has taken the run yet) a 503 `WORKER_UNAVAILABLE` the client may retry, not a request that hangs."""
    try:
        return await handle.query(query, result_type=result_type, rpc_timeout=QUERY_TIMEOUT)
    except RPCError as err:
        if not unanswered(err):
            raise
        message = f"没有 worker 在 {QUERY_TIMEOUT.total_seconds():g} 秒内回答这个运行：运行还在，请稍后重试"
        retry = {"Retry-After": str(RETRY_TEMPORAL_SECONDS)}
        raise ApiError(503, ErrorCode.WORKER_UNAVAILABLE, message, retry) from err


def _require_running(description: WorkflowExecutionDescription) -> None:
    if description.status != WorkflowExecutionStatus.RUNNING:
        status = description.status.name.lower() if description.status else "closed"
        raise ApiError(409, ErrorCode.RUN_ALREADY_CLOSED, f"运行已结束（{status}）")


def _visibility_query(principal: str, names: list[str], session_id: str | None, status: ListedStatus | None) -> str:
    """A visibility query from validated values only (a principal and a session id matching their patterns,
    registered names)."""
    clauses = [
        f"{OWNER.name} = '{principal}'",
        "WorkflowType IN ({})".format(", ".join(f"'{name}'" for name in names)),
        "ExecutionStatus != 'ContinuedAsNew'",
    ]
    if session_id is not None:
        clauses.append(f"{SESSION_ID.name} = '{session_id}'")
    if status == "running":
        clauses.append("ExecutionStatus = 'Running'")
    elif status == "waiting":
        clauses.append(f"ExecutionStatus = 'Running' AND {RUN_STATUS.name} = 'waiting'")
    elif status == "terminated":
        clauses.append("ExecutionStatus = 'Terminated'")
    elif status is not None:
        clauses.append(f"{RUN_STATUS.name} = '{status}'")
    return " AND ".join(clauses)


def _listed_status(execution: WorkflowExecutionStatus | None, run_status: str | None) -> ListedStatus:
    if execution == WorkflowExecutionStatus.RUNNING:
        return "waiting" if run_status == "waiting" else "running"
    if run_status in ENDED:
        return run_status  # type: ignore[return-value]
    return _CLOSED_STATUS.get(execution, "completed") if execution is not None else "completed"


def _decode_token(token: str | None) -> bytes | None:
    if token is None:
        return None
    try:
        return base64.urlsafe_b64decode(token.encode())
    except (binascii.Error, ValueError) as err:
        raise ApiError(422, ErrorCode.INVALID_REQUEST, "pageToken 无效（not a token this API issued）") from err
