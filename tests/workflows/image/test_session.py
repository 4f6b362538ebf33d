"""ImageSessionWorkflow: one turn at a time (the next queued at once), the last 50 messages and the last result,
idle end, continue-as-new."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WithStartWorkflowOperation, WorkflowExecutionStatus, WorkflowHandle
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from models.image.runs import ChatTurn, SessionInput, SessionSnapshot, TurnEnd, TurnTicket
from models.image.state import ImageAgentState, UserInput
from stores.blob_store import LocalBlobStore
from stores.style_store import LanceStyleStore
from tests.conftest import TEST_SERVER, register_search_attributes
from tests.workflows.harness import settings_for, terminate_running
from tests.workflows.image.harness import Harness, agent_harness
from worker import WORKFLOW_RUNNER, build_activities, running_workers
from workflows.image.session import MAX_MESSAGES, ImageSessionWorkflow, session_workflow_id
from workflows.image.workflow import ImageAgentWorkflow

OWNER = "tester"


async def submit(harness: Harness, session_id: str, text: str, **session: Any) -> TurnTicket:
    client: Client = harness.env.client
    harness.started.add(session_workflow_id(OWNER, session_id))
    start = WithStartWorkflowOperation(
        ImageSessionWorkflow.run,
        SessionInput(snapshot=SessionSnapshot(session_id=session_id), owner=OWNER, **session),
        id=session_workflow_id(OWNER, session_id),
        task_queue=harness.settings.task_queue("image"),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
    return await client.execute_update_with_start_workflow(
        ImageSessionWorkflow.submit, ChatTurn(user_input=UserInput(text=text)), start_workflow_operation=start
    )


async def result_of(env: WorkflowEnvironment, run_id: str) -> ImageAgentState:
    """Wait for a turn's run to finish (its start may still be on its way), then query its whole state."""
    handle = env.client.get_workflow_handle_for(ImageAgentWorkflow.run, run_id)
    async with env.time_skipping_unlocked():  # type: ignore[attr-defined]
        for _ in range(100):
            try:
                await handle.result()
                break
            except RPCError:
                await asyncio.sleep(0.05)
    return await handle.query(ImageAgentWorkflow.state)


async def query_state(handle: WorkflowHandle[Any, Any]) -> SessionSnapshot:
    """The time-skipping server can miss a query that races a continue-as-new; ask again (bounded)."""
    for _ in range(10):
        await asyncio.sleep(1)
        try:
            return await handle.query(ImageSessionWorkflow.state)
        except RPCError:
            pass
    return await handle.query(ImageSessionWorkflow.state)


async def env_result(harness: Harness, session_workflow: str) -> SessionSnapshot:
    async with harness.env.time_skipping_unlocked():  # type: ignore[attr-defined]
        return await harness.env.client.get_workflow_handle_for(ImageSessionWorkflow.run, session_workflow).result()


async def test_turns_of_one_session_run_one_at_a_time(harness: Harness) -> None:
    tickets = sorted(
        await asyncio.gather(
            submit(harness, "order", "生成一只赛博朋克风格的猫"), submit(harness, "order", "生成一只水彩风格的狐狸")
        ),
        key=lambda ticket: ticket.turn,
    )

    assert [t.run_id.rsplit("-", 1)[0] for t in tickets] == ["image-order-1", "image-order-2"]
    first_id, second_id = (t.run_id for t in tickets)
    assert [t.position for t in tickets] == [0, 1]
    await result_of(harness.env, second_id)
    one = await harness.events(first_id)
    two = await harness.events(second_id)
    assert two[0].type == "queued" and two[0].data["position"] == 1
    assert not any(e.type == "queued" for e in one)
    began = next(e for e in two if e.type != "queued")
    assert began.ts >= one[-1].ts, "the second turn began only after the first had ended"
    assert two[-1].type == one[-1].type == "stream_end"


async def test_a_queued_turn_gets_the_context_of_the_turn_before_it(harness: Harness) -> None:
    first = await submit(harness, "chain", "生成一只赛博朋克风格的猫")
    second = await submit(harness, "chain", "再调整一下，大一点")  # queued while the first runs

    assert second.position == 1
    state = await result_of(harness.env, second.run_id)
    first_state = await result_of(harness.env, first.run_id)
    assert state.intent is not None and state.intent.action == "adjust_parameters"
    assert first_state.execution_result is not None and state.execution_result is not None
    assert state.execution_result.metadata["baseImageUrl"] == first_state.execution_result.image_url
    assert [m.content for m in state.messages][:1] == ["生成一只赛博朋克风格的猫"]


async def test_cancelling_a_queued_turn_ends_it_and_the_session_goes_on(harness: Harness) -> None:
    first = await submit(harness, "cancel", "生成一只赛博朋克风格的猫")
    second = await submit(harness, "cancel", "画一只猫")
    third = await submit(harness, "cancel", "画一朵花")
    await harness.env.client.get_workflow_handle(second.run_id).cancel()

    events = await harness.events(second.run_id)
    third_state = await result_of(harness.env, third.run_id)

    assert next(e.type for e in events) == "queued" and events[-1].data["status"] == "cancelled"
    assert any(e.type == "error" and e.data["code"] == "CANCELLED" for e in events)
    assert third_state.execution_result is not None
    assert (
        await harness.env.client.get_workflow_handle(first.run_id).describe()
    ).status == WorkflowExecutionStatus.COMPLETED
    reports = {end.run_id: end for end in await turn_reports(harness, "cancel")}
    assert set(reports) == {first.run_id, second.run_id, third.run_id}
    cancelled = reports[second.run_id]
    assert cancelled.result is None and cancelled.failure == "任务已取消", "the cancelled run reported itself"


async def turn_reports(harness: Harness, session_id: str) -> list[TurnEnd]:
    """The ends the session's runs reported to it (`turn_ended` signals), in the order they arrived."""
    session = harness.env.client.get_workflow_handle(session_workflow_id(OWNER, session_id))
    return [
        TurnEnd.model_validate_json(event.workflow_execution_signaled_event_attributes.input.payloads[0].data)
        async for event in session.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
        and event.workflow_execution_signaled_event_attributes.signal_name == "turn_ended"
    ]


async def test_cancelling_a_session_cancels_its_running_and_queued_turns(harness: Harness) -> None:
    first = await submit(harness, "cancelled-session", "生成一只赛博朋克风格的猫")
    second = await submit(harness, "cancelled-session", "画一朵花")
    session = harness.env.client.get_workflow_handle(session_workflow_id(OWNER, "cancelled-session"))
    await session.cancel()

    async with harness.env.time_skipping_unlocked():  # type: ignore[attr-defined]
        closed = [await wait_closed(harness.env.client, run_id) for run_id in (session.id, first.run_id, second.run_id)]
    events = await harness.events(second.run_id)

    assert closed == [WorkflowExecutionStatus.CANCELED] * 3
    assert next(e.type for e in events) == "queued" and events[-1].data["status"] == "cancelled"


async def test_a_run_queued_in_a_session_an_operator_terminated_ends_instead_of_waiting_for_ever(
    tmp_path: Path, style_store: LanceStyleStore
) -> None:
    """A terminated session never sends `begin`: the queued run checks on its session (on the workflow clock) and
    ends with SESSION_ENDED and its terminal event."""
    async with own_server_harness(tmp_path, style_store) as harness:
        client = harness.env.client
        first = await submit(harness, "terminated-session", "生成一只赛博朋克风格的猫")
        second = await submit(harness, "terminated-session", "画一朵花")
        await client.get_workflow_handle(session_workflow_id(OWNER, "terminated-session")).terminate("an operator")

        async with harness.env.time_skipping_unlocked():  # type: ignore[attr-defined]
            closed = [await wait_closed(client, run_id) for run_id in (first.run_id, second.run_id)]
        events = await harness.events(second.run_id)

    assert closed == [WorkflowExecutionStatus.COMPLETED] * 2
    assert next(e.type for e in events) == "queued" and events[-1].data["status"] == "failed"
    assert any(e.type == "error" and e.data["code"] == "SESSION_ENDED" for e in events)


async def wait_closed(client: Client, workflow_id: str) -> WorkflowExecutionStatus | None:
    for _ in range(200):
        status = (await client.get_workflow_handle(workflow_id).describe()).status
        if status != WorkflowExecutionStatus.RUNNING:
            return status
        await asyncio.sleep(0.05)
    return WorkflowExecutionStatus.RUNNING


async def test_a_run_terminated_by_an_operator_does_not_hold_up_the_turns_behind_it(harness: Harness) -> None:
    """A terminated run never reports its end: when its turn comes, the session looks it up once it has been
    silent for longer than a run can take (on the workflow clock), and the turn after it goes on."""
    client = harness.env.client
    first = await submit(harness, "terminated", "生成一只赛博朋克风格的猫")
    second = await submit(harness, "terminated", "画一只猫")
    third = await submit(harness, "terminated", "画一朵花")
    async with harness.env.time_skipping_unlocked():  # type: ignore[attr-defined]
        await wait_for_event(client, second.run_id, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)  # it waits
        await client.get_workflow_handle(second.run_id).terminate("an operator stopped it")
        third_state = await result_of(harness.env, third.run_id)
    snapshot = await client.get_workflow_handle(session_workflow_id(OWNER, "terminated")).query(
        ImageSessionWorkflow.state
    )

    assert second.position == 1 and third_state.execution_result is not None
    assert [end.run_id for end in await turn_reports(harness, "terminated")] == [first.run_id, third.run_id]
    looked_up = [  # more than one when skipped time outran a run still at work: each found it running
        event
        async for event in client.get_workflow_handle(session_workflow_id(OWNER, "terminated")).fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and event.user_metadata.summary.data == b'"look up a silent run"'
    ]
    assert looked_up, "the session asked Temporal how the silent run was doing"
    assert [m.content for m in snapshot.messages][2:4] == ["画一只猫", "本轮任务未完成：运行已被终止"]


async def wait_for_event(client: Client, workflow_id: str, event_type: "EventType.ValueType") -> None:
    for _ in range(200):
        with suppress(RPCError):
            async for event in client.get_workflow_handle(workflow_id).fetch_history_events():
                if event.event_type == event_type:
                    return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{workflow_id} never recorded {EventType.Name(event_type)}")


async def test_adjusting_uses_the_previous_turns_image(harness: Harness) -> None:
    first = await result_of(harness.env, (await submit(harness, "adjust", "生成一只赛博朋克风格的猫")).run_id)
    second = await result_of(harness.env, (await submit(harness, "adjust", "再调整一下，大一点")).run_id)

    assert first.execution_result is not None and second.execution_result is not None
    assert second.intent is not None and second.intent.action == "adjust_parameters"
    assert second.execution_result.task_type == "parameter_adjustment"
    assert second.execution_result.metadata["baseImageUrl"] == first.execution_result.image_url
    assert (second.execution_result.width, second.execution_result.height) == (1000, 752)


async def test_a_session_ends_after_30_minutes_without_a_message(tmp_path: Path, style_store: LanceStyleStore) -> None:
    async with own_server_harness(tmp_path, style_store) as harness:  # the 30 idle minutes skip at once
        await check_idle_end(harness)


@asynccontextmanager
async def own_server_harness(tmp_path: Path, style_store: LanceStyleStore) -> AsyncIterator[Harness]:
    """A harness on a time-skipping server of its own, whose clock nothing another test left running holds back."""
    async with await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(TEST_SERVER), data_converter=pydantic_data_converter
    ) as env:
        await register_search_attributes(env.client)
        async with agent_harness(env, tmp_path, style_store) as harness:
            yield harness


async def check_idle_end(harness: Harness) -> None:
    ticket = await submit(harness, "idle", "画一只猫")
    await result_of(harness.env, ticket.run_id)
    handle = harness.env.client.get_workflow_handle(session_workflow_id(OWNER, "idle"))

    final = await env_result(harness, handle.id)  # the test server skips the idle wait

    turn = await harness.env.client.get_workflow_handle(ticket.run_id).describe()
    session = await handle.describe()
    assert session.status == WorkflowExecutionStatus.COMPLETED
    assert turn.close_time is not None and session.close_time is not None
    idle = session.close_time - turn.close_time
    assert timedelta(minutes=30) <= idle < timedelta(minutes=30, seconds=5)
    assert final.turns == 1 and final.previous is not None


async def test_a_session_keeps_the_last_50_messages_across_continue_as_new(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    async with agent_harness(env, tmp_path, style_store) as harness:
        for turn in range(1, 28):
            ticket = await submit(harness, "long", f"😀 {turn}", max_turns_per_run=10)
            await result_of(env, ticket.run_id)
        handle = env.client.get_workflow_handle(session_workflow_id(OWNER, "long"))
        snapshot = await query_state(handle)
        history = [e async for e in handle.fetch_history_events()]

    assert snapshot.turns == 27
    assert len(snapshot.messages) == MAX_MESSAGES
    assert snapshot.messages[-2].content == "😀 27" and snapshot.messages[0].content == "😀 3"
    started = history[0].workflow_execution_started_event_attributes
    assert started.continued_execution_run_id, "the session continued-as-new"
    assert started.input.payloads, "and carried its snapshot over"
    assert len(history) < 400  # the current run holds at most 10 turns


async def test_a_turn_returns_only_what_the_session_keeps(harness: Harness) -> None:
    ticket = await submit(harness, "small", "生成一只赛博朋克风格的猫")
    state = await result_of(harness.env, ticket.run_id)

    session = harness.env.client.get_workflow_handle(session_workflow_id(OWNER, "small"))
    reports = [
        event.workflow_execution_signaled_event_attributes.input.payloads[0].data
        async for event in session.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
        and event.workflow_execution_signaled_event_attributes.signal_name == "turn_ended"
    ]
    assert len(reports) == 1
    end = TurnEnd.model_validate_json(reports[0])
    kept = end.result
    assert end.run_id == ticket.run_id and kept is not None
    assert state.execution_result is not None and kept.previous is not None
    assert kept.previous.blob_key == state.execution_result.blob_key and kept.status == "completed"
    assert len(reports[0]) < 1000 < len(state.model_dump_json()) // 3, "the whole state stays in the run"


async def test_a_session_started_again_never_reuses_an_earlier_runs_id(harness: Harness) -> None:
    before = await submit(harness, "again", "生成一只赛博朋克风格的猫")
    old = await result_of(harness.env, before.run_id)
    await harness.env.client.get_workflow_handle(session_workflow_id(OWNER, "again")).terminate("the session ended")

    after = await submit(harness, "again", "画一朵花")  # a new session under the same id: turn 1 again
    await result_of(harness.env, after.run_id)

    assert after.turn == before.turn == 1 and after.run_id != before.run_id
    still_old = await harness.env.client.get_workflow_handle(before.run_id).query(ImageAgentWorkflow.state)
    assert still_old.user_input.text == old.user_input.text == "生成一只赛博朋克风格的猫"


async def finished(env: WorkflowEnvironment, run_id: str) -> None:
    """Wait for a turn's run on a real server: its start follows the session's update by a moment."""
    for _ in range(100):
        try:
            await env.client.get_workflow_handle(run_id).result()
            return
        except RPCError:
            await asyncio.sleep(0.05)
    await env.client.get_workflow_handle(run_id).result()


async def test_a_message_after_a_worker_restart_is_not_queued_and_the_session_replays(
    dev_env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    """The first worker stops before it sees the first turn's result; the next one gets that result and the next
    message in one workflow task. The message must not wait for a turn that is over, and the session's history
    must replay (it did not: the message was queued live and not on replay, a nondeterminism error). On a dev
    server: the time-skipping one leaves a task on the stopped worker's sticky queue while its clock is locked."""
    env = dev_env
    settings = settings_for(tmp_path)
    activities = build_activities(settings, style_store=style_store)
    harness = Harness(env=env, settings=settings, blobs=LocalBlobStore(settings.blob_dir), llm_attempts=[])
    async with running_workers(env.client, settings, activities):
        first = await submit(harness, "restarted", "画一只猫")
        await finished(env, first.run_id)
    async with running_workers(env.client, settings, activities):
        after = await submit(harness, "restarted", "画一只狗")
        await finished(env, after.run_id)
        history = await env.client.get_workflow_handle(session_workflow_id(OWNER, "restarted")).fetch_history()
        await terminate_running(env.client, harness.started)

    assert after.position == 0
    replayer = Replayer(
        workflows=[ImageSessionWorkflow, ImageAgentWorkflow],
        workflow_runner=WORKFLOW_RUNNER,
        data_converter=pydantic_data_converter,
    )
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None
