"""The generic run API every workflow family shares: state, events (SSE, resumable), cancel, declared graphs."""

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query
from fastapi.responses import PlainTextResponse, StreamingResponse
from temporalio.client import Client, WorkflowExecutionDescription, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode

from api.deps import TemporalClient
from api.errors import ApiError
from api.schemas import RunView
from api.streaming import SSE_HEADERS, first_offset, sse_stream
from models.errors import ErrorCode
from workflows.registry import GRAPHS

router = APIRouter(tags=["runs"])


async def _describe(client: Client, run_id: str) -> tuple[WorkflowHandle[Any, Any], WorkflowExecutionDescription]:
    handle = client.get_workflow_handle(run_id)
    try:
        return handle, await handle.describe()
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            raise ApiError(404, ErrorCode.RUN_NOT_FOUND, f"没有这个运行：{run_id}") from err
        raise


@router.get("/v1/runs/{run_id}", response_model=RunView, response_model_by_alias=True)
async def get_run(run_id: str, client: TemporalClient) -> RunView:
    """Status from Temporal and the workflow's `state` query, with the seed's field names (e.g. `intent.action`)."""
    handle, description = await _describe(client, run_id)
    state = await handle.query("state")
    return RunView(
        run_id=run_id,
        workflow_type=description.workflow_type,
        status=description.status.name.lower() if description.status else "unknown",
        start_time=description.start_time,
        close_time=description.close_time,
        state=state,
    )


@router.get(
    "/v1/runs/{run_id}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def run_events(
    run_id: str,
    client: TemporalClient,
    last_event_id: Annotated[str | None, Header()] = None,
    after: Annotated[int | None, Query(ge=-1, description="resume after this event id")] = None,
) -> StreamingResponse:
    """Join a run's event stream, or resume it: with `Last-Event-ID: n` (or `?after=n`) events n+1… follow."""
    await _describe(client, run_id)
    offset = after + 1 if after is not None else first_offset(last_event_id)
    return StreamingResponse(sse_stream(client, run_id, offset), media_type="text/event-stream", headers=SSE_HEADERS)


@router.post("/v1/runs/{run_id}/cancel", status_code=202)
async def cancel_run(run_id: str, client: TemporalClient) -> dict[str, str]:
    """Ask a running run to stop: it ends through its error path with a CANCELLED error and `stream_end`."""
    handle, description = await _describe(client, run_id)
    if description.status != WorkflowExecutionStatus.RUNNING:
        status = description.status.name.lower() if description.status else "closed"
        raise ApiError(409, ErrorCode.RUN_ALREADY_CLOSED, f"运行已结束（{status}），无法取消")
    await handle.cancel()
    return {"runId": run_id, "status": "cancel_requested"}


@router.get("/v1/workflows/{name}/graph", response_class=PlainTextResponse, tags=["graphs"])
async def workflow_graph(name: str) -> str:
    """The declared graph of a workflow family as Mermaid (seed 004 §2)."""
    graph = GRAPHS.get(name)
    if graph is None:
        raise ApiError(404, ErrorCode.WORKFLOW_NOT_FOUND, f"没有这个工作流：{name}（有：{', '.join(GRAPHS)}）")
    return graph.to_mermaid()
