"""Ask-and-wait (ARCHITECTURE rule 9): the question shows in state and as an event, answers go through an update
whose validator refuses a wrong one without recording it, and an unanswered question ends at its deadline."""

from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from models.human_input import AwaitingInput, InputAnswer, ReceivedAnswer
from models.search_attributes import RUN_STATUS
from tests.workflows.common.conftest import Tiny
from tests.workflows.common.tiny import TINY_ACTIVITIES, TINY_WORKFLOWS, AskWorkflow
from tests.workflows.common.tiny_models import AskInput
from tests.workflows.harness import question_of, settings_for
from worker import running_workers
from workflows.common.human_input import INPUT_UPDATE
from workflows.common.registration import Registry


async def answer(handle: WorkflowHandle[Any, Any], text: str, question_id: str | None = None) -> ReceivedAnswer:
    received: ReceivedAnswer = await handle.execute_update(
        INPUT_UPDATE, InputAnswer(answer=text, question_id=question_id), result_type=ReceivedAnswer
    )
    return received


async def refusal(handle: WorkflowHandle[Any, Any], text: str, question_id: str | None = None) -> str | None:
    with pytest.raises(WorkflowUpdateFailedError) as failed:
        await answer(handle, text, question_id)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    return cause.type


async def test_the_question_shows_in_state_and_as_an_event_and_an_offered_answer_resumes_the_run(
    dev_tiny: Tiny,
) -> None:
    tiny = dev_tiny
    handle = await tiny.start("AskWorkflow", AskInput())
    question = await question_of(handle)

    state = await handle.query(AskWorkflow.state)
    assert state.awaiting_input == question
    assert (question.prompt, [o.id for o in question.options]) == ("Which colour?", ["red", "blue"])
    assert (await handle.describe()).typed_search_attributes.get(RUN_STATUS) == "waiting"
    received = await answer(handle, "blue", question.question_id)

    assert await handle.result() == "completed"
    assert received.option is not None and received.option.label == "Blue"
    events = await tiny.events(handle.id)
    assert [e.type for e in events] == ["user_input_required", "user_input_received", "note", "done"]
    assert AwaitingInput.model_validate(events[0].data) == question
    assert events[2].data == {"text": "you chose blue"}
    assert (await handle.query(AskWorkflow.state)).awaiting_input is None


async def test_a_wrong_answer_is_refused_by_the_validator_and_not_recorded(dev_tiny: Tiny) -> None:
    """On the dev server: the time-skipping test server loses a refused update instead of reporting it."""
    handle = await dev_tiny.start("AskWorkflow", AskInput(linger_seconds=3600))
    await question_of(handle)

    assert await refusal(handle, "green") == "INPUT_NOT_AN_OPTION"
    assert await refusal(handle, "red", question_id="an-earlier-question") == "INPUT_QUESTION_CHANGED"
    await answer(handle, "red")
    assert await refusal(handle, "blue") == "RUN_NOT_WAITING"

    accepted = [
        e
        async for e in handle.fetch_history_events()
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
    ]
    assert len(accepted) == 1, "refused answers leave no trace in the history"
    assert (await handle.query(AskWorkflow.state)).answer == "red"


async def test_free_text_is_taken_where_the_question_allows_it(dev_tiny: Tiny) -> None:
    handle = await dev_tiny.start("AskWorkflow", AskInput(allow_free_text=True))
    await question_of(handle)

    received = await answer(handle, "a deep green, like moss")

    assert received.option is None and await handle.result() == "completed"


async def test_an_unanswered_question_ends_the_run_cleanly_at_its_deadline(tiny: Tiny) -> None:
    handle = await tiny.start("AskWorkflow", AskInput(timeout_seconds=24 * 3600))
    question = await question_of(handle)

    assert await handle.result() == "completed"  # the test server skips the day

    events = await tiny.events(handle.id)
    assert [e.type for e in events] == ["user_input_required", "user_input_expired", "done"]
    assert events[1].data["questionId"] == question.question_id
    assert (events[1].ts - events[0].ts).total_seconds() == pytest.approx(24 * 3600, abs=1)
    assert (await handle.query(AskWorkflow.state)).answer is None


async def test_a_waiting_run_survives_a_worker_restart(dev_env: WorkflowEnvironment, tmp_path: Path) -> None:
    env = dev_env
    settings = settings_for(tmp_path)
    registry = Registry(TINY_WORKFLOWS)
    async with running_workers(env.client, settings, TINY_ACTIVITIES, registry):
        handle = await env.client.start_workflow(
            "AskWorkflow", AskInput(), id=f"ask-restart-{tmp_path.name}", task_queue=settings.task_queue("test")
        )
        question = await question_of(handle)
    # no worker at all now; a new one picks the run up from its history
    async with running_workers(env.client, settings, TINY_ACTIVITIES, registry):
        await answer(handle, "red", question.question_id)
        assert await handle.result() == "completed"
        assert (await handle.query(AskWorkflow.state)).answer == "red"
