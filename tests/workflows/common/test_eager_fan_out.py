"""A node that schedules several activities on its own queue in one workflow task gets all of them back in that
task's completion (eager execution, `worker.EAGER_ACTIVITIES_PER_WORKFLOW_TASK`), not only the SDK's default
three: under load the ones sent through the task queue did not finish inside their start-to-close."""

from datetime import timedelta

from temporalio.api.enums.v1 import EventType

from tests.workflows.common.conftest import Tiny
from tests.workflows.common.tiny import FAN_OUT
from tests.workflows.common.tiny_models import ProbeInput

SAME_TRANSACTION = timedelta(milliseconds=1)
"""An eager activity is recorded as started in the transaction that schedules it (about 40 µs apart); one sent
through the task queue waits for the server to match it to a poll."""


async def test_every_activity_of_a_fan_out_starts_in_the_completion_of_the_task_that_scheduled_it(
    dev_tiny: Tiny,
) -> None:
    handle = await dev_tiny.start("GraphProbeWorkflow", ProbeInput(behaviour="fan_out"))
    assert await handle.result() == "completed"
    history = await handle.fetch_history()

    scheduled = {
        event.event_id: event.event_time.ToDatetime()
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }
    waits = [
        event.event_time.ToDatetime() - scheduled[event.activity_task_started_event_attributes.scheduled_event_id]
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]
    assert len(scheduled) == len(waits) == FAN_OUT
    assert all(wait < SAME_TRANSACTION for wait in waits), waits
