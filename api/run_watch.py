"""Following a run from the gateway: whether it waits for a person, and when it closes (for `api.admission`).

Nothing is asked of the run itself: the ask-and-wait helper (`workflows.common.human_input`) upserts the
`RunStatus` search attribute to `waiting` when it asks and back to `running` when it is answered or its question
expires, and those upserts are events of the run's history. The gateway long-polls that history (one poll at a time
per run, `wait_new_event`), into the next run after a continue-as-new. On a server without history long polls (the
time-skipping test server, as `api.streaming` finds out) it reads the run's description every
`DESCRIBE_POLL_SECONDS` instead. A run that does not exist yet (a session's turn is started by its session) is
waited for `STARTING_RUN_SECONDS`.
"""

import asyncio
from collections.abc import Callable, Sequence

from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.api.workflowservice.v1 import GetWorkflowExecutionHistoryRequest
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.converter import decode_typed_search_attributes
from temporalio.service import RPCError, RPCStatusCode

from api.streaming import CLOSED_EVENTS, STARTING_RUN_SECONDS, serves_history_long_polls
from models.search_attributes import RUN_STATUS

WATCH_RETRY_SECONDS = 1.0
DESCRIBE_POLL_SECONDS = 0.1
_MISSING_RETRY_SECONDS = 0.05
_OPEN = (WorkflowExecutionStatus.RUNNING, WorkflowExecutionStatus.CONTINUED_AS_NEW)

OnStatus = Callable[[str], None]
"""Called with the run's `RunStatus` (`waiting`, `running`, ...) each time the gateway reads it (maybe unchanged)."""


async def follow_run(client: Client, run_id: str, on_status: OnStatus) -> None:
    """Return when `run_id` closes (or never appears), calling `on_status` on the way.

    Each page of history is read as a whole and only its last `RunStatus` is reported, so reading a history again
    from its start (after Temporal could not be reached for a moment) reports where the run is now, not every
    step it took to get there."""
    loop = asyncio.get_running_loop()
    patience = loop.time() + STARTING_RUN_SECONDS
    token = b""
    while True:
        try:
            if await serves_history_long_polls(client):
                closed, token = await _next_page(client, run_id, token, on_status)
            else:
                closed = await _described(client, run_id, on_status)
        except RPCError as err:
            if err.status != RPCStatusCode.NOT_FOUND:
                token = b""
                await asyncio.sleep(WATCH_RETRY_SECONDS)
            elif loop.time() > patience:
                return
            else:
                await asyncio.sleep(_MISSING_RETRY_SECONDS)
            continue
        if closed:
            return


async def _next_page(client: Client, run_id: str, token: bytes, on_status: OnStatus) -> tuple[bool, bytes]:
    """The history after `token` (waiting for it): whether the run closed, and the token to read on from (none
    after a continue-as-new: the next run is read from its start)."""
    page = await client.workflow_service.get_workflow_execution_history(
        GetWorkflowExecutionHistoryRequest(
            namespace=client.namespace,
            execution=WorkflowExecution(workflow_id=run_id),
            next_page_token=token,
            wait_new_event=True,
            skip_archival=True,
        )
    )
    events = page.history.events
    if (status := last_status(events)) is not None:
        on_status(status)
    return bool(events) and events[-1].event_type in CLOSED_EVENTS, page.next_page_token


async def _described(client: Client, run_id: str, on_status: OnStatus) -> bool:
    """The run's `RunStatus` from its description; whether it closed (if not, after a pause)."""
    description = await client.get_workflow_handle(run_id).describe()
    if (status := description.typed_search_attributes.get(RUN_STATUS)) is not None:
        on_status(status)
    if description.status not in _OPEN:
        return True
    await asyncio.sleep(DESCRIBE_POLL_SECONDS)
    return False


def last_status(events: Sequence[HistoryEvent]) -> str | None:
    """The `RunStatus` the last of `events` that upserts it sets, if any does."""
    status: str | None = None
    for event in events:
        if event.event_type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
            upserted = event.upsert_workflow_search_attributes_event_attributes.search_attributes
            status = decode_typed_search_attributes(upserted).get(RUN_STATUS) or status
    return status
