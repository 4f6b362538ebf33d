"""Ask a person and wait for the answer, with a deadline, in one call (ARCHITECTURE rule 9).

`HumanInput` registers the `input` update (with a validator) and the `awaiting_input` query on the workflow
that creates it. `ask()` shows the question as `awaiting_input`, emits `user_input_required`, sets the
`RunStatus` search attribute to `waiting`, and blocks on `workflow.wait_condition` until an answer is accepted
or the deadline passes. Waiting costs nothing and survives worker restarts; the gateway delivers answers from
`POST /v1/runs/{id}/input`. The validator refuses an answer when nothing is asked (RUN_NOT_WAITING), when it
was meant for an earlier question (INPUT_QUESTION_CHANGED), after the deadline (INPUT_EXPIRED) or when it is not
an offered option and the question takes no free text (INPUT_NOT_AN_OPTION); a refused answer is not recorded
in the run's history. An unanswered question ends at its deadline with `user_input_expired`.

A family that asks must declare the three events of `models.human_input.HUMAN_INPUT_EVENTS` in its catalog.
"""

import asyncio
from collections.abc import Sequence
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from workflows.common.event_log import EventLog

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode
    from models.human_input import (
        EXPIRED_EVENT,
        RECEIVED_EVENT,
        REQUIRED_EVENT,
        AwaitingInput,
        InputAnswer,
        InputExpired,
        InputOption,
        ReceivedAnswer,
    )
    from models.search_attributes import RUN_STATUS

INPUT_UPDATE = "input"
AWAITING_QUERY = "awaiting_input"


class HumanInput:
    """A workflow's channel to a person: one question at a time, answered through the `input` update."""

    def __init__(self, events: EventLog) -> None:
        self._events = events
        self.awaiting: AwaitingInput | None = None
        self._answer: ReceivedAnswer | None = None
        workflow.set_update_handler(INPUT_UPDATE, self._receive, validator=self._validate)
        workflow.set_query_handler(AWAITING_QUERY, self._awaiting)

    async def ask(
        self,
        node: str,
        prompt: str,
        options: Sequence[InputOption] = (),
        *,
        timeout: timedelta,
        allow_free_text: bool = False,
    ) -> ReceivedAnswer | None:
        """Ask and wait until `timeout`; the accepted answer, or None when nobody answered in time."""
        question = AwaitingInput(
            question_id=workflow.uuid4().hex[:12],
            prompt=prompt,
            options=list(options),
            allow_free_text=allow_free_text or not options,
            deadline=workflow.now() + timeout,
            node=node,
        )
        self.awaiting, self._answer = question, None
        workflow.upsert_search_attributes([RUN_STATUS.value_set("waiting")])
        self._events.emit(REQUIRED_EVENT, node, question)
        self._events.publish()
        try:
            await workflow.wait_condition(lambda: self._answer is not None, timeout=timeout)
        except asyncio.CancelledError:
            self.awaiting = None
            raise
        except TimeoutError:
            self._stop_waiting()
            expired = InputExpired(
                question_id=question.question_id,
                prompt=prompt,
                deadline=question.deadline,
                message="等待回答已超时，按现有结果结束（no answer before the deadline）",
            )
            self._events.emit(EXPIRED_EVENT, node, expired)
            return None
        # No `finally` here: a workflow evicted from the cache has its coroutines closed outside any workflow, and
        # workflow calls made then would land in whichever workflow runs at that moment.
        self._stop_waiting()
        answer = self._answer
        assert answer is not None
        self._events.emit(RECEIVED_EVENT, node, answer)
        return answer

    def _stop_waiting(self) -> None:
        self.awaiting = None
        workflow.upsert_search_attributes([RUN_STATUS.value_set("running")])

    def _awaiting(self) -> AwaitingInput | None:
        return self.awaiting

    def _validate(self, answer: InputAnswer) -> None:
        question = self.awaiting
        if question is None:
            raise ApplicationError(
                "这个运行现在没有在等待回答（the run is not waiting for input）", type=ErrorCode.RUN_NOT_WAITING
            )
        if answer.question_id is not None and answer.question_id != question.question_id:
            raise ApplicationError(
                f"问题已经变了，当前问题是 {question.question_id}（the run now asks something else）",
                type=ErrorCode.INPUT_QUESTION_CHANGED,
            )
        if workflow.now() >= question.deadline:
            raise ApplicationError("回答已超过截止时间（the question has expired）", type=ErrorCode.INPUT_EXPIRED)
        if _option(question, answer.answer) is None and not question.allow_free_text:
            offered = ", ".join(option.id for option in question.options)
            raise ApplicationError(
                f"“{answer.answer[:40]}” 不是可选项之一，请选择：{offered}（not one of the offered options）",
                type=ErrorCode.INPUT_NOT_AN_OPTION,
            )

    def _receive(self, answer: InputAnswer) -> ReceivedAnswer:
        question = self.awaiting
        assert question is not None, "the validator lets answers in only while a question is asked"
        received = ReceivedAnswer(
            question_id=question.question_id,
            answer=answer.answer,
            option=_option(question, answer.answer),
            received_at=workflow.now(),
        )
        self._answer = received
        self.awaiting = None  # one answer per question: the next one is refused by the validator
        return received


def _option(question: AwaitingInput, answer: str) -> InputOption | None:
    return next((option for option in question.options if option.id == answer.strip()), None)
