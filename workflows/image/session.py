"""ImageSessionWorkflow: one per `sessionId`; runs the session's turns one at a time (seed 000 §5.2, §7.4, §7.5).

The gateway submits each message with the `submit` update (update-with-start creates the session on its first
message). The update answers once the turn's run has started: the session starts it (`image.start_turn`, a local
activity in the update's workflow task) as a workflow of its own with the readable id
`image-<session>-<turn>-<unique>`, so its events stream from the first moment. (Not a child: a child's first
workflow task waits until its parent has recorded that it started, and that record costs the parent a workflow
task of its own while the run's first task is under way; `activities.image.turns` says more.) A turn submitted
while another runs is queued: its run emits `queued` and waits until the session sends `begin` with the context as
of then (the last 50 messages, the last image for "再调整一下"). Each run reports how it ended (`turn_ended`), with
only what the session keeps; a run the session has not heard from for longer than it can take is looked up. The
session ends after 30 minutes without a message, and continues-as-new between turns long before its history grows
large.
"""

import asyncio
from contextlib import suppress
from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ApplicationError, FailureError

from workflows import policies
from workflows.common.patches import decide_at_start
from workflows.common.run import run_activity
from workflows.image.workflow import ImageAgentWorkflow

with workflow.unsafe.imports_passed_through():
    from models.image.errors import ImageErrorCode
    from models.image.runs import (
        LOOK_UP_TURN,
        START_TURN,
        ChatTurn,
        ImageAgentInput,
        SessionInput,
        SessionSnapshot,
        TurnContext,
        TurnEnd,
        TurnLookup,
        TurnStart,
        TurnTicket,
    )
    from models.image.state import Message, UserInput

MAX_MESSAGES = 50
PLANNER_CONTEXT_MESSAGES = 5
MAX_QUEUED_MESSAGES = 100
MAX_REMEMBERED_CHARS = 1000
"""A message is remembered truncated to what a run uses of it (ValidateInput keeps 1000 characters)."""


def session_workflow_id(owner: str, session_id: str) -> str:
    """`session-<owner>-<session>`, each `-` of the owner written `.` (a character neither a principal's name nor a
    session id may hold): the first `-` after the prefix ends the owner, so two principals' sessions never share a
    workflow, whatever ids they pick (`team` + `qa-s1` and `team-qa` + `s1` were the same id before). An owner
    without `-` keeps the id it had."""
    return f"session-{owner.replace('-', '.')}-{session_id}"


def turn_workflow_id(session_id: str, turn: int, unique: str) -> str:
    """`image-<session>-<turn>-<unique>`: readable in the Web UI, and never the id of an earlier run (a session
    that ended and started again counts its turns from 1 again) nor one that can be guessed from the turn."""
    return f"image-{session_id}-{turn}-{unique}"


@dataclass
class _Turn:
    number: int
    run_id: str
    text: str
    started: "asyncio.Task[None]"
    has_context: bool


@workflow.defn
class ImageSessionWorkflow:
    """A session's memory and its queue of turns; its `state` query shows both."""

    @workflow.init
    def __init__(self, input: SessionInput) -> None:
        self._input = input
        self._snapshot = input.snapshot.model_copy(deep=True)
        self._turns: list[_Turn] = []
        self._turns_this_run = 0
        self._last_activity = workflow.now()
        self._ended: dict[str, TurnEnd] = {}
        """Ends reported by runs still in the queue (a queued run can be cancelled before its turn)."""

    @workflow.query(name="state")
    def state(self) -> SessionSnapshot:
        active = self._turns[0].run_id if self._turns else None
        return self._snapshot.model_copy(update={"active_run_id": active, "queued": max(0, len(self._turns) - 1)})

    @workflow.update
    async def submit(self, turn: ChatTurn) -> TurnTicket:
        """Start the turn's run now (queued behind earlier turns if there are any) and say which run it is.

        It first lets every other ready task of the workflow run: a message can arrive in the same workflow task
        as the previous turn's result (a worker that had the session out of its cache got both at once), and the
        activation's jobs are all applied before any task runs (`worker.SINGLE_BATCH`); only once the main loop
        has taken that result does the queue say truly whether this turn waits. Read earlier, it said "queued"
        live and "not queued" on replay: a nondeterminism error the next time the session was replayed."""
        await workflow.wait_condition(lambda: True)  # resumes once every ready task has run
        self._last_activity = workflow.now()
        self._snapshot.turns += 1
        number = self._snapshot.turns
        session_id = self._snapshot.session_id
        run_id = turn_workflow_id(session_id, number, workflow.uuid4().hex[:10])
        position = len(self._turns)
        context = self._context() if position == 0 else None
        run_input = ImageAgentInput(
            session_id=session_id,
            turn=number,
            user_input=turn.user_input,
            context=context,
            position=position,
            deadline_seconds=self._input.run_deadline_seconds,
            llm_configured=self._input.llm_configured,
            hosted_models=self._input.hosted_models,
            direct_models=self._input.direct_models,
            default_model=self._input.default_model,
            allow_fallback=self._input.allow_fallback,
            session_workflow_id=workflow.info().workflow_id,
        )
        started = asyncio.create_task(self._start(run_id, run_input, turn.user_input))
        self._turns.append(_Turn(number, run_id, turn.user_input.text, started, has_context=context is not None))
        if context is not None:
            self._remember_user(turn.user_input.text)
        return TurnTicket(session_id=session_id, turn=number, run_id=run_id, position=position)

    @submit.validator
    def _accept_submit(self, turn: ChatTurn) -> None:
        if turn.owner is not None and turn.owner != self._input.owner:  # an id from before ids were unambiguous
            raise ApplicationError("这个会话 id 不可用，请换一个", type=ImageErrorCode.SESSION_UNAVAILABLE)
        if len(self._turns) > MAX_QUEUED_MESSAGES:
            raise ApplicationError(
                f"会话排队已满（最多 {MAX_QUEUED_MESSAGES} 条），请稍后再发", type=ImageErrorCode.SESSION_BUSY
            )

    @workflow.run
    async def run(self, input: SessionInput) -> SessionSnapshot:
        decide_at_start()  # before anything else: workflows/common/patches.py
        try:
            return await self._serve(input)
        except asyncio.CancelledError:
            await self._cancel_turns()
            raise

    async def _serve(self, input: SessionInput) -> SessionSnapshot:
        idle = asyncio.create_task(self._idle_for(timedelta(seconds=input.idle_timeout_seconds)))
        while True:
            if self._should_continue_as_new():
                workflow.continue_as_new(input.model_copy(update={"snapshot": self.state()}))
            await workflow.wait_condition(lambda: bool(self._turns) or idle.done())
            if not self._turns:
                return self.state()
            await self._play(self._turns[0])
            played = self._turns.pop(0)
            self._ended.pop(played.run_id, None)  # a report that came after the run was looked up
            self._turns_this_run += 1
            self._last_activity = workflow.now()

    async def _cancel_turns(self) -> None:
        """A cancelled session cancels its runs, the one running and those queued (they are workflows of their own:
        nothing else would stop them, and a queued one would wait for its turn for ever)."""
        for turn in self._turns:
            with suppress(FailureError, asyncio.CancelledError):
                await turn.started
                await workflow.get_external_workflow_handle(turn.run_id).cancel()

    async def _idle_for(self, limit: timedelta) -> None:
        """Return once the session has had no message for `limit`. One timer per idle stretch, not one per turn:
        when it fires early (a message came meanwhile) it sleeps only for what is left."""
        while True:
            left = self._last_activity + limit - workflow.now()
            if left <= timedelta(0) and not self._turns and workflow.all_handlers_finished():
                return
            await workflow.sleep(max(left, timedelta(seconds=1)))

    async def _start(self, run_id: str, run_input: ImageAgentInput, user_input: UserInput) -> None:
        summary = f"turn {run_input.turn}: {user_input.text[:80]}"
        request = TurnStart(run_id=run_id, input=run_input, owner=self._input.owner, summary=summary)
        await run_activity(START_TURN, request, policies.IMAGE_START_TURN, summary=f"start turn {run_input.turn}")

    @workflow.signal
    def turn_ended(self, end: TurnEnd) -> None:
        """A run's report of how it ended (a repeated or unknown one is ignored)."""
        if any(turn.run_id == end.run_id for turn in self._turns):
            self._ended[end.run_id] = end

    async def _play(self, turn: _Turn) -> None:
        """Let the turn at the head of the queue run (sending its context if it was queued) and keep its result."""
        try:
            await turn.started
        except FailureError as err:  # the run could not be started
            self._remember_assistant(f"本轮任务未完成：{err.cause or err}")
            return
        if not turn.has_context:
            self._remember_user(turn.text)
            if turn.run_id not in self._ended:  # not cancelled while it waited
                with suppress(FailureError):  # it ended meanwhile: its report says how
                    run = workflow.get_external_workflow_handle(turn.run_id)
                    await run.signal(ImageAgentWorkflow.begin, self._context(exclude_last=True))
        end = await self._end_of(turn.run_id)
        if end.result is None:
            self._remember_assistant(f"本轮任务未完成：{end.failure or '未知原因'}")
            return
        self._remember_assistant(end.result.reply)
        if end.result.previous is not None:
            self._snapshot.previous = end.result.previous

    async def _end_of(self, run_id: str) -> TurnEnd:
        """The run's reported end; when none comes for longer than a run can take, Temporal is asked."""
        silence = timedelta(seconds=self._input.run_deadline_seconds) + policies.IMAGE_TURN_SILENCE
        while True:
            with suppress(TimeoutError):
                await workflow.wait_condition(lambda: run_id in self._ended, timeout=silence)
                return self._ended.pop(run_id)
            looked = await run_activity(
                LOOK_UP_TURN, TurnLookup(run_id=run_id), policies.IMAGE_LOOK_UP_TURN, summary="look up a silent run"
            )
            if looked.end is not None:
                return looked.end

    def _context(self, *, exclude_last: bool = False) -> TurnContext:
        """The context a starting turn gets: the messages before its own, and the last image."""
        messages = self._snapshot.messages[:-1] if exclude_last else self._snapshot.messages
        return TurnContext(messages=messages[-PLANNER_CONTEXT_MESSAGES:], previous=self._snapshot.previous)

    def _should_continue_as_new(self) -> bool:
        quiet = not self._turns and workflow.all_handlers_finished()
        due = self._turns_this_run >= self._input.max_turns_per_run or workflow.info().is_continue_as_new_suggested()
        return quiet and due

    def _remember_user(self, text: str) -> None:
        self._remember(Message(role="user", content=text[:MAX_REMEMBERED_CHARS], timestamp=workflow.now()))

    def _remember_assistant(self, text: str) -> None:
        self._remember(Message(role="assistant", content=text[:MAX_REMEMBERED_CHARS], timestamp=workflow.now()))

    def _remember(self, message: Message) -> None:
        self._snapshot.messages = [*self._snapshot.messages, message][-MAX_MESSAGES:]
