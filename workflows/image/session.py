"""SessionWorkflow: one per `sessionId`; runs the session's turns one at a time (seed 000 §5.2, §7.4, §7.5, §8.3).

The gateway submits each message with the `submit` update (update-with-start creates the session on its first
message). A message waits until the previous turn has finished, then its turn starts as a child
`ImageAgentWorkflow` with the readable id `image-<session>-<turn>`, and the update answers with that id. The
session keeps the last 50 messages and the last result (for "再调整一下"), ends after 30 minutes without a
message, and continues-as-new between turns long before its history grows large.
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ApplicationError, ChildWorkflowError

from workflows.image_agent import ImageAgentWorkflow
from workflows.search_attributes import SESSION_ID

with workflow.unsafe.imports_passed_through():
    from models.agent import AgentState, Message, PreviousResult
    from models.errors import ErrorCode
    from models.runs import ChatTurn, ImageAgentInput, SessionInput, SessionSnapshot, TurnTicket

MAX_MESSAGES = 50
PLANNER_CONTEXT_MESSAGES = 5
MAX_QUEUED_MESSAGES = 100


def session_workflow_id(session_id: str) -> str:
    return f"session-{session_id}"


def turn_workflow_id(session_id: str, turn: int) -> str:
    return f"image-{session_id}-{turn}"


@workflow.defn
class SessionWorkflow:
    @workflow.init
    def __init__(self, input: SessionInput) -> None:
        self._input = input
        self._snapshot = input.snapshot.model_copy(deep=True)
        self._waiting: list[int] = []
        self._active: workflow.ChildWorkflowHandle[ImageAgentWorkflow, AgentState] | None = None
        self._turns_this_run = 0

    @workflow.query(name="state")
    def state(self) -> SessionSnapshot:
        return self._snapshot.model_copy(
            update={"active_run_id": self._active.id if self._active else None, "queued": len(self._waiting)}
        )

    @workflow.update
    async def submit(self, turn: ChatTurn) -> TurnTicket:
        self._snapshot.turns += 1
        number = self._snapshot.turns
        self._waiting.append(number)
        await workflow.wait_condition(lambda: self._active is None and self._waiting[0] == number)
        session_id = self._snapshot.session_id
        run_id = turn_workflow_id(session_id, number)
        run_input = ImageAgentInput(
            session_id=session_id,
            turn=number,
            user_input=turn.user_input,
            messages=self._snapshot.messages[-PLANNER_CONTEXT_MESSAGES:],
            previous=self._snapshot.previous,
            deadline_seconds=self._input.run_deadline_seconds,
        )
        self._remember(Message(role="user", content=turn.user_input.text, timestamp=workflow.now()))
        self._active = await workflow.start_child_workflow(
            ImageAgentWorkflow.run,
            run_input,
            id=run_id,
            static_summary=f"turn {number}: {turn.user_input.text[:80]}",
            search_attributes=TypedSearchAttributes([SearchAttributePair(SESSION_ID, session_id)]),
        )
        self._waiting.pop(0)  # only now: while the child starts, the next message must keep waiting
        return TurnTicket(session_id=session_id, turn=number, run_id=run_id)

    @submit.validator
    def _accept_submit(self, turn: ChatTurn) -> None:
        if len(self._waiting) >= MAX_QUEUED_MESSAGES:
            raise ApplicationError(
                f"会话排队已满（最多 {MAX_QUEUED_MESSAGES} 条），请稍后再发", type=ErrorCode.SESSION_BUSY
            )

    @workflow.run
    async def run(self, input: SessionInput) -> SessionSnapshot:
        idle = timedelta(seconds=input.idle_timeout_seconds)
        while True:
            if self._should_continue_as_new():
                workflow.continue_as_new(input.model_copy(update={"snapshot": self.state()}))
            try:
                await workflow.wait_condition(lambda: self._active is not None, timeout=idle)
            except TimeoutError:
                if workflow.all_handlers_finished() and not self._waiting:
                    return self.state()
                continue
            assert self._active is not None
            await self._finish_turn(self._active)

    async def _finish_turn(self, child: workflow.ChildWorkflowHandle[ImageAgentWorkflow, AgentState]) -> None:
        try:
            state = await child
        except ChildWorkflowError as err:
            self._remember(Message(role="assistant", content=f"本轮任务未完成：{err.cause}", timestamp=workflow.now()))
        else:
            self._remember(Message(role="assistant", content=_reply(state), timestamp=workflow.now()))
            if state.execution_result is not None and state.error is None:
                self._snapshot.previous = _previous_result(state)
        self._active = None
        self._turns_this_run += 1

    def _should_continue_as_new(self) -> bool:
        quiet = self._active is None and not self._waiting and workflow.all_handlers_finished()
        due = self._turns_this_run >= self._input.max_turns_per_run or workflow.info().is_continue_as_new_suggested()
        return quiet and due

    def _remember(self, message: Message) -> None:
        self._snapshot.messages = [*self._snapshot.messages, message][-MAX_MESSAGES:]


def _reply(state: AgentState) -> str:
    if state.error is not None:
        return state.error.message
    if state.execution_result is not None:
        return f"上一次生成的结果：{state.execution_result.image_url}"
    return "已完成"


def _previous_result(state: AgentState) -> PreviousResult:
    result = state.execution_result
    intent = state.intent
    assert result is not None
    return PreviousResult(
        image_url=result.image_url,
        blob_key=result.blob_key,
        prompt=intent.prompt if intent and intent.prompt else result.prompt,
        subject=intent.subject if intent else None,
        style=intent.style if intent else None,
        width=result.width,
        height=result.height,
        style_strength=result.style_strength,
        seed=result.seed,
    )
