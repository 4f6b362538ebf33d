"""How the gateway starts a run of a registered workflow, in two steps.

`prepare` runs in the intake process (`api.intake`): the request body parsed, the workflow found, its input
validated and prepared (the image family stores a mask's bytes here, the claim check) into what the run needs,
which is small. `start` then runs on the event loop and starts (or submits) the run on Temporal. A family with
its own start-up registers a `Launcher`; every other startable workflow gets `Launcher()`: its validated input
unchanged, started directly under a fresh id.
"""

import hashlib
import uuid
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from temporalio.client import Client
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import WorkflowAlreadyStartedError

from api.blob_urls import BlobLinks
from api.bodies import InvalidBody, parse_body
from api.errors import ApiError
from models.errors import ErrorCode
from models.runs import RunStartRequest, RunTicket
from models.search_attributes import OWNER, RUN_STATUS, SESSION_ID
from models.settings import Settings
from stores.blob_store import BlobStore
from workflows.common.registration import RegisteredWorkflow, Registry


@dataclass(frozen=True)
class LaunchContext:
    """What `start` may use: the Temporal client, the settings, the workflow it starts and the principal that
    asked (the run's `Owner`)."""

    client: Client
    settings: Settings
    workflow: RegisteredWorkflow
    principal: str
    idempotency_key: str | None = None
    """The request's `Idempotency-Key`: a retry with the same one gets the run the first request started."""


def keyed_run_id(prefix: str, principal: str, workflow: str, key: str | None) -> str | None:
    """The run id an `Idempotency-Key` stands for: `<prefix>-<hash of the principal, the workflow and the key>`, so
    one principal's key never names another's run; None without a key."""
    if key is None:
        return None
    named = "\n".join((principal, workflow, key)).encode()
    return f"{prefix}-{hashlib.sha256(named).hexdigest()[:16]}"


async def start_once(client: Client, workflow: str, arg: Any, *, run_id: str, keyed: bool, **options: Any) -> None:
    """Start `workflow` as `run_id`. A `keyed` id (`keyed_run_id`) may have started a run already, running or
    closed: that run is the answer, and nothing starts twice."""
    if not keyed:
        await client.start_workflow(workflow, arg, id=run_id, **options)
        return
    with suppress(WorkflowAlreadyStartedError):  # the key's run has closed: it is still the one
        await client.start_workflow(
            workflow,
            arg,
            id=run_id,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            **options,
        )


@dataclass(frozen=True)
class PrepareContext:
    """What `prepare` may use in the intake process: the blob store, the settings and the caller's blob URLs."""

    blobs: BlobStore
    settings: Settings
    links: BlobLinks


def keep_input(run_input: BaseModel, context: PrepareContext) -> BaseModel:
    """The default `prepare`: the validated input is what the workflow takes."""
    return run_input


async def start_run(
    context: LaunchContext,
    run_input: BaseModel,
    session_id: str | None,
    *,
    prefix: str | None = None,
    summary: str | None = None,
) -> RunTicket:
    """Start `context.workflow` with `run_input` under the id `<prefix>-<random>` (the family's name by default; with
    an `Idempotency-Key`, the id it stands for, and a run already started under it is the answer), owned by the
    principal that asked, with `summary` as its static summary in the Web UI. An input with `owner` and
    `session_id` fields carries the principal and the session too."""
    entry = context.workflow
    if {"owner", "session_id"} <= type(run_input).model_fields.keys():
        run_input = run_input.model_copy(update={"owner": context.principal, "session_id": session_id})
    keyed = keyed_run_id(prefix or entry.family, context.principal, entry.name, context.idempotency_key)
    run_id = keyed or f"{prefix or entry.family}-{uuid.uuid4().hex[:16]}"
    await start_once(
        context.client,
        entry.name,
        run_input,
        run_id=run_id,
        keyed=keyed is not None,
        task_queue=context.settings.task_queue(entry.family),
        search_attributes=run_search_attributes(context.principal, session_id),
        static_summary=summary or f"{entry.name} started through POST /v1/runs",
    )
    return RunTicket(run_id=run_id, workflow=entry.name, session_id=session_id)


async def start_directly(context: LaunchContext, prepared: BaseModel, session_id: str | None) -> RunTicket:
    """The default `start`: the workflow with the prepared input as its argument."""
    return await start_run(context, prepared, session_id)


StartFunction = Callable[[LaunchContext, BaseModel, str | None], Awaitable[RunTicket]]
"""How a workflow's run starts: from the launch context, the prepared input and the session."""


def bound_start(
    start: StartFunction, context: LaunchContext, prepared: BaseModel, session_id: str | None
) -> Callable[[], Awaitable[tuple[str, str | None]]]:
    """`start` for one request, as `api.admission.admitted_stream` calls it: the run's id and session."""

    async def begin() -> tuple[str, str | None]:
        ticket = await start(context, prepared, session_id)
        return ticket.run_id, ticket.session_id

    return begin


@dataclass(frozen=True)
class Launcher:
    """A workflow's two start-up steps; `prepare` must be a module-level function (it is sent to another process)."""

    prepare: Callable[[BaseModel, PrepareContext], BaseModel] = keep_input
    start: StartFunction = start_directly


Launchers = Mapping[str, Launcher]
"""Launchers by workflow name."""


@dataclass(frozen=True)
class PreparedRun:
    """What `prepare_run` sends back: the workflow, the session and the prepared input."""

    workflow: str
    session_id: str | None
    prepared: BaseModel


def prepare_run(chunks: list[bytes], registry: Registry, launchers: Launchers, context: PrepareContext) -> PreparedRun:
    """In the intake process: `POST /v1/runs`'s body parsed, its workflow found, its input validated (against the
    workflow's input model) and prepared."""
    request = parse_body(RunStartRequest, chunks)
    entry = registered(registry, request.workflow)
    if entry.input_model is None:
        raise ApiError(400, ErrorCode.WORKFLOW_NOT_STARTABLE, f"{entry.name} 不能直接启动（由其家族的运行启动）")
    try:
        run_input = entry.input_model.model_validate(request.input)
    except ValidationError as err:
        raise InvalidBody.from_error(err, "input") from None
    launcher = launchers.get(entry.name, Launcher())
    return PreparedRun(entry.name, request.session_id, launcher.prepare(run_input, context))


def registered(registry: Registry, name: str, run_id: str | None = None) -> RegisteredWorkflow:
    """The registered workflow `name`; 404 WORKFLOW_NOT_FOUND, or RUN_NOT_FOUND for a run of `run_id` whose
    workflow is not one of ours."""
    entry = registry.get(name)
    if entry is not None:
        return entry
    if run_id is not None:
        raise ApiError(404, ErrorCode.RUN_NOT_FOUND, f"没有这个运行：{run_id}")
    known = ", ".join(e.name for e in registry)
    raise ApiError(404, ErrorCode.WORKFLOW_NOT_FOUND, f"没有这个工作流：{name}（有：{known}）")


def run_search_attributes(owner: str, session_id: str | None) -> TypedSearchAttributes:
    """The search attributes every run starts with: its `Owner`, `RunStatus=running` and its session, if any."""
    pairs: list[SearchAttributePair[str]] = [
        SearchAttributePair(OWNER, owner),
        SearchAttributePair(RUN_STATUS, "running"),
    ]
    if session_id is not None:
        pairs.append(SearchAttributePair(SESSION_ID, session_id))
    return TypedSearchAttributes(pairs)
