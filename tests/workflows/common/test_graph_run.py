"""GraphRun, the machinery every family's workflow runs on: declared edges only, deadline and cancellation
through the error node, unexpected errors ended cleanly, node errors mapped, one terminal event."""

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowExecutionStatus

from tests.workflows.common.conftest import Tiny
from tests.workflows.common.tiny import PROBE_GRAPH, GraphProbeWorkflow
from tests.workflows.common.tiny_models import ProbeInput


async def run_probe(tiny: Tiny, behaviour: str, deadline: float = 60) -> tuple[str, list[str], dict[str, object]]:
    handle = await tiny.start(
        "GraphProbeWorkflow", ProbeInput.model_validate({"behaviour": behaviour, "deadlineSeconds": deadline})
    )
    status = await handle.result()
    state = await handle.query(GraphProbeWorkflow.state)
    events = await tiny.events(handle.id)
    assert events[-1].terminal and events[-1].type == "done"
    assert [e.seq for e in events] == list(range(len(events)))
    path = [target for _, target in state.metadata.transitions]
    return status, path, events[-1].data


async def test_a_correct_run_walks_declared_edges_and_ends_with_one_terminal_event(tiny: Tiny) -> None:
    status, path, end = await run_probe(tiny, "ok")

    assert status == "completed" and end == {"status": "completed"}
    assert path == ["a", "b", "end"]


async def test_an_undeclared_transition_is_refused_and_the_run_ends_through_its_error_node(tiny: Tiny) -> None:
    status, path, end = await run_probe(tiny, "undeclared")

    assert status == "failed"
    assert path == ["a", "fail", "end"], "a → end is not a declared edge, so it was never taken"
    assert end["error"]["code"] == "UNDECLARED_TRANSITION"  # type: ignore[index]
    assert not PROBE_GRAPH.has_edge("a", "end")


async def test_a_node_that_raises_ends_the_run_with_internal_error_not_a_stuck_task(tiny: Tiny) -> None:
    status, path, end = await run_probe(tiny, "crash")

    assert status == "failed" and path == ["a", "fail", "end"]
    assert end["error"] == {"code": "INTERNAL_ERROR", "message": "a 节点内部错误：a bug in node a", "node": "a"}


async def test_the_deadline_ends_a_run_in_a_node_through_the_error_node(tiny: Tiny) -> None:
    status, path, end = await run_probe(tiny, "slow", deadline=30)

    assert status == "timeout" and path == ["a", "fail", "end"]
    assert end["error"]["code"] == "WORKFLOW_TIMEOUT" and end["error"]["node"] == "a"  # type: ignore[index]


async def test_an_activity_runs_with_its_declared_options_and_summary(tiny: Tiny) -> None:
    handle = await tiny.start("GraphProbeWorkflow", ProbeInput(behaviour="activity_ok"))
    assert await handle.result() == "completed"

    scheduled = [
        event.activity_task_scheduled_event_attributes
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert [s.activity_type.name for s in scheduled] == ["test.echo"]
    assert scheduled[0].start_to_close_timeout.ToSeconds() == 5
    assert scheduled[0].retry_policy.initial_interval.ToSeconds() == 5
    notes = [e.data["text"] for e in await tiny.events(handle.id) if e.type == "note"]
    assert notes == ["hello", "b ran"]


async def test_a_node_failure_keeps_the_code_the_activity_gave(tiny: Tiny) -> None:
    status, path, end = await run_probe(tiny, "activity_fails")

    assert status == "failed" and path == ["a", "fail", "end"]
    assert end["error"] == {"code": "EXECUTION_FAILED", "message": "echo refused", "node": "a"}


async def test_cancelling_ends_through_the_error_node_and_the_run_is_cancelled(tiny: Tiny) -> None:
    handle = await tiny.start("GraphProbeWorkflow", ProbeInput(behaviour="slow", deadline_seconds=3600))
    await tiny.env.sleep(1)
    await handle.cancel()
    events = await tiny.events(handle.id)

    assert (await handle.describe()).status == WorkflowExecutionStatus.CANCELED
    assert events[-1].data == {
        "status": "cancelled",
        "error": {"code": "CANCELLED", "message": "任务已取消", "node": "a"},
    }
    assert [e.data["text"] for e in events if e.type == "note"] == ["failed: CANCELLED"]
