"""What a session and its turns ask of Temporal itself: start a turn's run, report its end, look it up.

A turn's run is a workflow of its own, started by its session (`image.start_turn`, a local activity in the
session's workflow task) rather than as a child: the server schedules a started workflow's first task at once,
where a child waits until its parent has recorded that it started, and the parent then gets a workflow task of
its own for that record. The start asks for that first task eagerly: the server hands it back in the start's
answer to this worker (the one that runs the session, with a free slot), so it skips the task queue (measured on
the stack: an earlier first event, same history; README, Performance); with no free slot it goes through the
queue as before.

The run tells its session how it ended (`image.report_turn`, a local activity in its last workflow task: not a
signal command in the run's last task, since the server drops a signal whose sender has closed before it is sent);
a session that has heard nothing for longer than a run can take looks the run up
(`image.look_up_turn`), so a run terminated by an operator never blocks the turns queued behind it; a queued run
checks now and then that its session is still there to let it begin (`image.look_up_session`).

Each is safe to repeat: a start that finds its run already there (running or closed) reports it started; a
repeated report is a signal the session ignores once it has the turn's end.

Runs are started and signalled by their registered names (`models.image.runs`), so activities never import
workflow code.
"""

from contextlib import suppress

from temporalio import activity
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import CancelledError, TerminatedError, WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from models.image.runs import (
    IMAGE_AGENT_WORKFLOW,
    LOOK_UP_SESSION,
    LOOK_UP_TURN,
    REPORT_TURN,
    START_TURN,
    TURN_ENDED_SIGNAL,
    ImageTurnResult,
    SessionLookedUp,
    SessionLookup,
    TurnEnd,
    TurnLookedUp,
    TurnLookup,
    TurnReport,
    TurnReported,
    TurnStart,
    TurnStarted,
)
from models.search_attributes import OWNER, RUN_STATUS, SESSION_ID


class TurnControl:
    """The four activities, through the worker's own Temporal client."""

    @START_TURN.defn
    async def start_turn(self, request: TurnStart) -> TurnStarted:
        with suppress(WorkflowAlreadyStartedError):  # an earlier attempt started it and it has already ended
            await activity.client().start_workflow(
                IMAGE_AGENT_WORKFLOW,
                request.input.model_copy(update={"owner": request.owner}),
                result_type=ImageTurnResult,
                id=request.run_id,
                task_queue=activity.info().task_queue,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                static_summary=request.summary,
                request_eager_start=True,
                search_attributes=TypedSearchAttributes(
                    [
                        SearchAttributePair(OWNER, request.owner),
                        SearchAttributePair(SESSION_ID, request.input.session_id),
                        SearchAttributePair(RUN_STATUS, "running"),
                    ]
                ),
            )
        return TurnStarted()

    @REPORT_TURN.defn
    async def report_turn(self, report: TurnReport) -> TurnReported:
        handle = activity.client().get_workflow_handle(report.session_workflow_id)
        try:
            await handle.signal(TURN_ENDED_SIGNAL, report.end)
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:  # the session has ended (idle, or terminated)
                return TurnReported(delivered=False)
            raise
        return TurnReported(delivered=True)

    @LOOK_UP_TURN.defn
    async def look_up_turn(self, request: TurnLookup) -> TurnLookedUp:
        status = await _status(request.run_id)
        if status is None:
            return TurnLookedUp(end=TurnEnd(run_id=request.run_id, failure="运行不存在"))
        if status == WorkflowExecutionStatus.RUNNING:
            return TurnLookedUp()
        handle = activity.client().get_workflow_handle(request.run_id, result_type=ImageTurnResult)
        try:
            result = await handle.result(follow_runs=False)
        except WorkflowFailureError as err:
            return TurnLookedUp(end=TurnEnd(run_id=request.run_id, failure=_why(err)))
        return TurnLookedUp(end=TurnEnd(run_id=request.run_id, result=result))

    @LOOK_UP_SESSION.defn
    async def look_up_session(self, request: SessionLookup) -> SessionLookedUp:
        return SessionLookedUp(open=await _status(request.session_workflow_id) == WorkflowExecutionStatus.RUNNING)


async def _status(workflow_id: str) -> WorkflowExecutionStatus | None:
    """The workflow's status, or None when there is no such workflow."""
    try:
        description = await activity.client().get_workflow_handle(workflow_id).describe()
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            return None
        raise
    return description.status


def _why(err: WorkflowFailureError) -> str:
    """Why a run ended without a result, as the session remembers it."""
    if isinstance(err.cause, TerminatedError):
        return "运行已被终止"
    if isinstance(err.cause, CancelledError):
        return "任务已取消"
    return str(err.cause or err)
