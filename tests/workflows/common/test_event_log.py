"""The event log across continue-as-new: `seq` goes on where the last run stopped, so a reader following the run
and a reader resuming after the last id it saw neither repeat nor skip an id."""

import asyncio

from temporalio.client import WorkflowExecutionStatus

from tests.workflows.common.conftest import Tiny
from tests.workflows.common.tiny_models import CountInput


async def test_seq_continues_across_continue_as_new_for_a_live_reader(dev_tiny: Tiny) -> None:
    """On the dev server, where the gateway's reader long-polls history as in production (on the time-skipping
    server a query racing its time skipping across continue-as-new could stall the run for good)."""
    tiny = dev_tiny
    handle = await tiny.start("CountingWorkflow", CountInput(per_run=2, runs=3))  # 1 s between notes

    events, last_seq = await asyncio.gather(tiny.events(handle.id), handle.result())

    assert [e.seq for e in events] == list(range(7)) and last_seq == 7
    assert [e.data.get("text") for e in events[:-1]] == [f"run {r} note {n}" for r in range(3) for n in range(2)]
    assert events[-1].type == "done" and events[-1].terminal
    first_run = tiny.env.client.get_workflow_handle(handle.id, run_id=handle.first_execution_run_id)
    assert (await first_run.describe()).status == WorkflowExecutionStatus.CONTINUED_AS_NEW


async def test_resuming_after_an_id_from_an_earlier_run_misses_nothing(tiny: Tiny) -> None:
    handle = await tiny.start("CountingWorkflow", CountInput(per_run=3, runs=3))
    await handle.result()

    for last_seen in (0, 2, 3, 7):
        resumed = await tiny.events(handle.id, from_offset=last_seen + 1)
        assert [e.seq for e in resumed] == list(range(last_seen + 1, 10))
