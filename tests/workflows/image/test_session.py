"""SessionWorkflow: one turn at a time, the last 50 messages and the last result, idle end, continue-as-new."""

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio.client import Client, WithStartWorkflowOperation, WorkflowExecutionStatus, WorkflowHandle
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from models.agent import AgentState, UserInput
from models.runs import ChatTurn, SessionInput, SessionSnapshot, TurnTicket
from stores.style_store import LanceStyleStore
from tests.conftest import TEST_SERVER, register_search_attributes
from tests.workflows.harness import Harness, agent_harness
from workflows.image_agent import ImageAgentWorkflow
from workflows.session import MAX_MESSAGES, SessionWorkflow, session_workflow_id


async def submit(harness: Harness, session_id: str, text: str, **session: Any) -> TurnTicket:
    client: Client = harness.env.client
    harness.sessions.add(session_workflow_id(session_id))
    start = WithStartWorkflowOperation(
        SessionWorkflow.run,
        SessionInput(snapshot=SessionSnapshot(session_id=session_id), **session),
        id=session_workflow_id(session_id),
        task_queue=harness.settings.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
    return await client.execute_update_with_start_workflow(
        SessionWorkflow.submit, ChatTurn(user_input=UserInput(text=text)), start_workflow_operation=start
    )


async def result_of(env: WorkflowEnvironment, run_id: str) -> AgentState:
    async with env.time_skipping_unlocked():  # type: ignore[attr-defined]
        state = await env.client.get_workflow_handle_for(ImageAgentWorkflow.run, run_id).result()
    return state


async def query_state(handle: WorkflowHandle[Any, Any]) -> SessionSnapshot:
    """The time-skipping server can miss a query that races a continue-as-new; ask again (bounded)."""
    for _ in range(10):
        await asyncio.sleep(1)
        try:
            return await handle.query(SessionWorkflow.state)
        except RPCError:
            pass
    return await handle.query(SessionWorkflow.state)


async def env_result(harness: Harness, session_workflow: str) -> SessionSnapshot:
    async with harness.env.time_skipping_unlocked():  # type: ignore[attr-defined]
        return await harness.env.client.get_workflow_handle_for(SessionWorkflow.run, session_workflow).result()


async def test_turns_of_one_session_run_one_at_a_time(harness: Harness) -> None:
    first, second = await asyncio.gather(
        submit(harness, "order", "生成一只赛博朋克风格的猫"), submit(harness, "order", "再调整一下，大一点")
    )

    assert {first.run_id, second.run_id} == {"image-order-1", "image-order-2"}
    one = await harness.env.client.get_workflow_handle("image-order-1").describe()
    two = await harness.env.client.get_workflow_handle("image-order-2").describe()
    await result_of(harness.env, "image-order-2")
    one = await harness.env.client.get_workflow_handle("image-order-1").describe()
    assert one.close_time is not None and two.start_time >= one.close_time


async def test_adjusting_uses_the_previous_turns_image(harness: Harness) -> None:
    await submit(harness, "adjust", "生成一只赛博朋克风格的猫")
    first = await result_of(harness.env, "image-adjust-1")
    await submit(harness, "adjust", "再调整一下，大一点")
    second = await result_of(harness.env, "image-adjust-2")

    assert first.execution_result is not None and second.execution_result is not None
    assert second.intent is not None and second.intent.action == "adjust_parameters"
    assert second.execution_result.task_type == "parameter_adjustment"
    assert second.execution_result.metadata["baseImageUrl"] == first.execution_result.image_url
    assert (second.execution_result.width, second.execution_result.height) == (1000, 752)


async def test_a_session_ends_after_30_minutes_without_a_message(tmp_path: Path, style_store: LanceStyleStore) -> None:
    # A server of its own, whose clock nothing else holds back, so the 30 idle minutes skip at once.
    async with (
        await WorkflowEnvironment.start_time_skipping(
            test_server_existing_path=str(TEST_SERVER), data_converter=pydantic_data_converter
        ) as env,
    ):
        await register_search_attributes(env.client)
        async with agent_harness(env, tmp_path, style_store) as harness:
            await check_idle_end(harness)


async def check_idle_end(harness: Harness) -> None:
    ticket = await submit(harness, "idle", "画一只猫")
    await result_of(harness.env, ticket.run_id)
    handle = harness.env.client.get_workflow_handle(session_workflow_id("idle"))

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
        handle = env.client.get_workflow_handle(session_workflow_id("long"))
        snapshot = await query_state(handle)
        history = [e async for e in handle.fetch_history_events()]

    assert snapshot.turns == 27
    assert len(snapshot.messages) == MAX_MESSAGES
    assert snapshot.messages[-2].content == "😀 27" and snapshot.messages[0].content == "😀 3"
    started = history[0].workflow_execution_started_event_attributes
    assert started.continued_execution_run_id, "the session continued-as-new"
    assert started.input.payloads, "and carried its snapshot over"
    assert len(history) < 400  # the current run holds at most 10 turns
