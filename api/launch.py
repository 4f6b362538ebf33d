"""How the gateway starts a run of a registered workflow: the default launcher and the launcher type families
with their own start-up (the image agent's session, its masks' claim check) provide instead."""

import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from pydantic import BaseModel
from temporalio.client import Client
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from models.runs import RunTicket
from models.settings import Settings
from stores.blob_store import LocalBlobStore
from workflows.common.search_attributes import RUN_STATUS, SESSION_ID
from workflows.registry import RegisteredWorkflow


@dataclass(frozen=True)
class LaunchContext:
    """What a launcher may use: the Temporal client, settings, the blob store and the workflow to start."""

    client: Client
    settings: Settings
    blobs: LocalBlobStore
    workflow: RegisteredWorkflow


Launcher = Callable[[LaunchContext, BaseModel, str | None], Awaitable[RunTicket]]
"""Starts a run from its validated input and optional session id, and says which run it is."""
Launchers = Mapping[str, Launcher]
"""Launchers by workflow name; a startable workflow without one is started by `start_directly`."""


def run_search_attributes(session_id: str | None) -> TypedSearchAttributes:
    """The search attributes every run starts with: `RunStatus=running` and its session, if any."""
    pairs: list[SearchAttributePair[str]] = [SearchAttributePair(RUN_STATUS, "running")]
    if session_id is not None:
        pairs.append(SearchAttributePair(SESSION_ID, session_id))
    return TypedSearchAttributes(pairs)


async def start_directly(context: LaunchContext, run_input: BaseModel, session_id: str | None) -> RunTicket:
    """Start the workflow with the validated input as its argument, under the id `<family>-<random>`."""
    entry = context.workflow
    run_id = f"{entry.family}-{uuid.uuid4().hex[:16]}"
    await context.client.start_workflow(
        entry.name,
        run_input,
        id=run_id,
        task_queue=context.settings.task_queue(entry.family),
        search_attributes=run_search_attributes(session_id),
        static_summary=f"{entry.name} started through POST /v1/runs",
    )
    return RunTicket(run_id=run_id, workflow=entry.name, session_id=session_id)
