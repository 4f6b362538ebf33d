"""ImageAgentWorkflow: one turn of the AiVista image agent as a durable state machine (seeds 000, 004).

ValidateInput → Planner → RAG (only with a style) → Executor → Critic → GenUI, with the Critic's regeneration
loop back to RAG and an ErrorHandler. `workflows.common.run.GraphRun` walks the nodes (deadline, cancellation,
recorded transitions, the terminal `stream_end`), and every activity's options come from `workflows.policies`.

This module holds the workflow's surface (its input, the `state` query, the `begin` signal, `run`) and the turn's
place in its session: a turn queued behind others emits `queued` and waits for the session's `begin` before its
60 s start, and every run that a session started reports how it ended to that session. The nodes live in the
phase modules, each given the turn's shared `ImageTurn`:

| node | module |
|---|---|
| validate_input, planner | `workflows.image.intake` |
| rag | `workflows.image.styles` |
| executor | `workflows.image.execution` |
| critic | `workflows.image.review` |
| genui, error_handler | `workflows.image.delivery` |
"""

import asyncio
from contextlib import suppress
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

from workflows import policies
from workflows.common.event_log import EventLog
from workflows.common.graph import START
from workflows.common.hosted_task import HostedTask
from workflows.common.patches import decide_at_start
from workflows.common.run import GraphRun, run_activity
from workflows.image.delivery import Delivery, turn_result
from workflows.image.execution import Execution
from workflows.image.graph import CRITIC, ERROR_HANDLER, EXECUTOR, GENUI, GRAPH, PLANNER, RAG, VALIDATE_INPUT
from workflows.image.intake import Intake
from workflows.image.review import Review
from workflows.image.styles import StyleRetrieval
from workflows.image.turn import ImageTurn

with workflow.unsafe.imports_passed_through():
    from models.events import RunStatus
    from models.image import hosted
    from models.image.events import IMAGE_EVENTS, Queued
    from models.image.runs import (
        LOOK_UP_SESSION,
        REPORT_TURN,
        ImageAgentInput,
        ImageTurnResult,
        SessionLookup,
        TurnContext,
        TurnEnd,
        TurnReport,
    )
    from models.image.state import ImageAgentMetadata, ImageAgentState


@workflow.defn
class ImageAgentWorkflow:
    """One image-agent turn: its state is queryable as `state`, its events stream until `stream_end`."""

    @workflow.init
    def __init__(self, input: ImageAgentInput) -> None:
        state = ImageAgentState(
            messages=input.context.messages if input.context else [],
            user_input=input.user_input,
            metadata=ImageAgentMetadata(session_id=input.session_id, current_node=START, start_time=workflow.now()),
        )
        events = EventLog(IMAGE_EVENTS)
        run = GraphRun(GRAPH, events, state, error_node=ERROR_HANDLER)
        self._turn = ImageTurn(input, state, events, run)
        hosted_task = HostedTask(
            run,
            poll=(hosted.POLL, policies.IMAGE_POLL),
            cancel=(hosted.CANCEL, policies.IMAGE_CANCEL),
            schedule=policies.IMAGE_TASK_POLL,
        )
        self._intake = Intake(self._turn)
        self._styles = StyleRetrieval(self._turn)
        self._review = Review(self._turn)
        self._execution = Execution(self._turn, hosted_task, self._review)
        self._delivery = Delivery(self._turn, hosted_task)
        self._session_watch: asyncio.Task[None] | None = None
        self._session_gone = False

    @workflow.query(name="state")
    def state(self) -> ImageAgentState:
        return self._turn.state

    @workflow.signal
    def begin(self, context: TurnContext) -> None:
        """The session's go-ahead for a queued turn, with the context as of now."""
        self._turn.context = context
        self._turn.state.messages = context.messages
        if self._session_watch is not None:
            self._session_watch.cancel()

    @workflow.run
    async def run(self, input: ImageAgentInput) -> ImageTurnResult:
        decide_at_start()  # before anything else: workflows/common/patches.py
        if self._turn.context is None:
            waiting = f"前面还有 {input.position} 个请求，排队中..."
            self._turn.events.emit("queued", START, Queued(position=input.position, message=waiting))
            if input.session_workflow_id is not None:
                self._session_watch = asyncio.create_task(self._watch_session(input.session_workflow_id))
        try:
            status = await self._execute(input)
        except asyncio.CancelledError:
            await self._report(TurnEnd(run_id=workflow.info().workflow_id, failure="任务已取消"))
            raise
        result = turn_result(self._turn.state, status)
        await self._report(TurnEnd(run_id=workflow.info().workflow_id, result=result))
        return result

    async def _execute(self, input: ImageAgentInput) -> RunStatus:
        return await self._turn.run.execute(
            {
                VALIDATE_INPUT: self._intake.validate_input,
                PLANNER: self._intake.planner,
                RAG: self._styles.rag,
                EXECUTOR: self._execution.executor,
                CRITIC: self._review.critic,
                GENUI: self._delivery.genui,
                ERROR_HANDLER: self._delivery.error_handler,
            },
            first=VALIDATE_INPUT,
            deadline=timedelta(seconds=input.deadline_seconds),
            ready=lambda: self._turn.context is not None or self._session_gone,
        )

    async def _watch_session(self, session_workflow_id: str) -> None:
        """While queued: every few minutes, check that the session that would let this run begin is still there.
        A session an operator terminated never sends `begin`; the run then ends with SESSION_ENDED."""
        lookup = SessionLookup(session_workflow_id=session_workflow_id)
        while not self._session_gone:
            await workflow.sleep(policies.IMAGE_QUEUED_SESSION_CHECK)
            looked = await run_activity(
                LOOK_UP_SESSION, lookup, policies.IMAGE_LOOK_UP_SESSION, summary="is the session still there"
            )
            self._session_gone = not looked.open

    async def _report(self, end: TurnEnd) -> None:
        """Tell the session how this run ended (after the terminal event: a report that fails for good changes
        nothing the user sees, and the session looks a silent run up)."""
        session_workflow_id = self._turn.input.session_workflow_id
        if session_workflow_id is None:
            return
        report = TurnReport(session_workflow_id=session_workflow_id, end=end)
        with suppress(ActivityError):
            await run_activity(REPORT_TURN, report, policies.IMAGE_REPORT_TURN, summary="report to the session")
