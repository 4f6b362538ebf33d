"""An app's rounds at the gateway (issue 27 item 2): a follow-up change (`fromRun`) starts from an earlier run's
final workspace, so the runs of one app form a chain, round 1 first.

- `base_of`: what a follow-up takes from the run it names (read when the run starts): that run must be an app run
  of the same principal (else the same 404 RUN_NOT_FOUND as a missing run), must have ended (409 BASE_NOT_READY)
  with files (a failed or cancelled run with files is a fine base; one that wrote nothing is not), and must not
  already be the chain's last round (`APP_MAX_ROUNDS`, 422 ROUND_LIMIT_REACHED).
- `GET /v1/apps/runs/{id}/rounds`: the chain from round 1 to this run, each round with its message, status,
  files and change counts.
- `GET /v1/apps/runs/{id}/diff`: the run's files against its base's final workspace (round 1: against the empty
  project), file by file with a unified diff (`stores.app_diff`, in a thread).

Any round downloads as its own `workspace.zip`, and any round can be the next `fromRun`.
"""

import asyncio
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from temporalio.client import Client, WorkflowExecutionDescription, WorkflowExecutionStatus

from api.bodies import StrictJsonRoute
from api.deps import AppSettings, Blobs, Principal, TemporalClient
from api.errors import ApiError
from api.routes.runs import answered, owned_run
from models.app_builder.agents import AppBrief
from models.app_builder.errors import AppBuilderErrorCode
from models.app_builder.rounds import AppRoundBase
from models.app_builder.state import AppBuilderState
from models.errors import ErrorCode
from models.search_attributes import SESSION_ID
from stores.app_diff import workspace_diff
from workflows.app_builder.workflow import AppBuilderWorkflow

router = APIRouter(prefix="/v1/apps", tags=["apps"], route_class=StrictJsonRoute)

PROMPT_MESSAGES = 10
"""The chain's messages every agent of a follow-up reads: the first request and the latest changes before this
one (the round's state keeps them all)."""
PROMPT_MESSAGE_CHARS = 600
"""Each of those messages as the agents read it (longer ones are cut, with `…`): every activity of the round
carries them in its brief, so they stay small in its history."""


async def app_round(
    client: Client, run_id: str, principal: str
) -> tuple[WorkflowExecutionDescription, AppBuilderState]:
    """Temporal's description and the state of `principal`'s app run `run_id`; any other run is a 404."""
    handle, description = await owned_run(client, run_id, principal)
    if description.workflow_type != AppBuilderWorkflow.__name__:
        raise ApiError(404, ErrorCode.RUN_NOT_FOUND, f"没有这个应用运行：{run_id}")
    state: AppBuilderState = await answered(handle, "state", AppBuilderState)
    return description, state


@dataclass(frozen=True)
class FollowUpBase:
    """What a follow-up takes from its base run: the base itself, its session (kept unless the follow-up names
    one) and its brief (whose platform and tech stack are kept unless the follow-up names them)."""

    base: AppRoundBase
    session_id: str | None
    brief: AppBrief


async def base_of(client: Client, run_id: str, principal: str, max_rounds: int) -> FollowUpBase:
    """The follow-up's base from run `run_id`."""
    description, state = await app_round(client, run_id, principal)
    if description.status == WorkflowExecutionStatus.RUNNING:
        message = f"运行 {run_id} 还没有结束：等它结束后再在它的基础上修改（the base run is still running）"
        raise ApiError(409, AppBuilderErrorCode.BASE_NOT_READY, message)
    if state.workspace.manifest_ref is None or state.workspace.files == 0:
        message = f"运行 {run_id} 没有写出任何文件，不能作为修改的基础（the base run wrote no file）"
        raise ApiError(409, AppBuilderErrorCode.BASE_NOT_READY, message)
    if state.round >= max_rounds:
        message = f"运行 {run_id} 已是第 {state.round} 轮：一个应用最多修改到第 {max_rounds} 轮（APP_MAX_ROUNDS）"
        raise ApiError(422, AppBuilderErrorCode.ROUND_LIMIT_REACHED, message)
    base = AppRoundBase(
        run_id=run_id,
        round=state.round,
        workspace=state.workspace,
        documents=state.documents,
        messages=[*state.earlier_messages, state.brief.message],
    )
    return FollowUpBase(base, description.typed_search_attributes.get(SESSION_ID), state.brief)


def prompt_messages(messages: list[str]) -> list[str]:
    """The chain's messages as the agents read them: all when few, else the first request, a note of how many
    were left out, and the latest changes; each cut at `PROMPT_MESSAGE_CHARS`."""
    shown = [m if len(m) <= PROMPT_MESSAGE_CHARS else m[:PROMPT_MESSAGE_CHARS] + "…" for m in messages]
    if len(shown) <= PROMPT_MESSAGES:
        return shown
    latest = shown[-(PROMPT_MESSAGES - 1) :]
    left_out = len(shown) - 1 - len(latest)
    return [shown[0], f"（省略了 {left_out} 次更早的修改）", *latest]


@router.get("/runs/{run_id}/rounds", responses={404: {"description": "RUN_NOT_FOUND"}})
async def list_rounds(run_id: str, client: TemporalClient, principal: Principal, settings: AppSettings) -> JSONResponse:
    """The app's rounds from round 1 to this run: each with its message, status, success, files, times and what
    it added, modified and removed against its base. `complete` is false when an earlier round is gone (Temporal's
    retention ended it) or the chain is longer than `APP_MAX_ROUNDS` now allows."""
    rounds: list[dict[str, Any]] = []
    current: str | None = run_id
    complete = True
    while current is not None and len(rounds) <= settings.app_max_rounds:
        try:
            description, state = await app_round(client, current, principal)
        except ApiError as err:
            if not rounds or err.code != ErrorCode.RUN_NOT_FOUND:
                raise
            complete = False
            break
        rounds.append(_round_view(current, description, state))
        current = state.base_run_id
    complete = complete and current is None
    return JSONResponse({"runId": run_id, "complete": complete, "rounds": rounds[::-1]})


@router.get("/runs/{run_id}/diff", responses={404: {"description": "RUN_NOT_FOUND"}})
async def round_diff(run_id: str, client: TemporalClient, principal: Principal, blobs: Blobs) -> JSONResponse:
    """The run's files against its base's final workspace (round 1: against the empty project), in path order:
    each with `status` (added, modified, removed), `additions`, `deletions` and its unified `diff` (cut at a cap
    with `truncated`; a large or non-text file is summarised in `note`)."""
    _, state = await app_round(client, run_id, principal)
    base = None
    if state.base_run_id is not None:
        _, base_state = await app_round(client, state.base_run_id, principal)
        base = base_state.workspace
    files = await asyncio.to_thread(workspace_diff, blobs, base, state.workspace)
    body = {
        "runId": run_id,
        "round": state.round,
        "baseRunId": state.base_run_id,
        "final": state.finished_at is not None,
        "files": [entry.model_dump(mode="json", by_alias=True) for entry in files],
    }
    return JSONResponse(body)


def _round_view(run_id: str, description: WorkflowExecutionDescription, state: AppBuilderState) -> dict[str, Any]:
    return {
        "runId": run_id,
        "round": state.round,
        "message": state.brief.message,
        "baseRunId": state.base_run_id,
        "status": description.status.name.lower() if description.status else "unknown",
        "success": state.success,
        "files": state.workspace.files,
        "startedAt": state.started_at.isoformat() if state.started_at else None,
        "finishedAt": state.finished_at.isoformat() if state.finished_at else None,
        "changes": state.changes.model_dump(mode="json", by_alias=True) if state.changes else None,
    }
