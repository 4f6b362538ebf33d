"""A node that schedules several activities on its own queue in one workflow task gets all of them back in that
task's completion (eager execution, `worker.EAGER_ACTIVITIES_PER_WORKFLOW_TASK`), not only the SDK's default
three: under load the ones sent through the task queue did not finish inside their start-to-close.

The worker's own count tells the two ways apart: the SDK's `temporal_activity_task_received` metric carries
`eager=true` for a task that came back in a workflow task's completion and `eager=false` for one it polled. (The
history's timestamps cannot: an eager start is recorded some 40 µs after its schedule on an idle machine, but
milliseconds after it while other processes keep the cores busy, as long as one sent through the queue.)"""

from collections import Counter
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import MetricBuffer, Runtime, TelemetryConfig
from temporalio.testing import WorkflowEnvironment

from tests.workflows.common.conftest import tiny_family
from tests.workflows.common.tiny import FAN_OUT
from tests.workflows.common.tiny_models import ProbeInput

RECEIVED_METRIC = "temporal_activity_task_received"


async def test_every_activity_of_a_fan_out_starts_in_the_completion_of_the_task_that_scheduled_it(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    buffer = MetricBuffer(10_000)
    metered = await Client.connect(
        dev_env.client.service_client.config.target_host,
        namespace=dev_env.client.namespace,
        data_converter=pydantic_data_converter,
        runtime=Runtime(telemetry=TelemetryConfig(metrics=buffer)),
    )
    async with tiny_family(dev_env, tmp_path, worker_client=metered) as tiny:
        handle = await tiny.start("GraphProbeWorkflow", ProbeInput(behaviour="fan_out"))
        assert await handle.result() == "completed"
        queue = tiny.settings.task_queue(tiny.family)
    history = await handle.fetch_history()

    scheduled = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED]
    received: Counter[bool] = Counter()
    for update in buffer.retrieve_updates():
        if update.metric.name == RECEIVED_METRIC and update.attributes.get("task_queue") == queue:
            received[bool(update.attributes.get("eager"))] += int(update.value)
    assert len(scheduled) == FAN_OUT
    assert received == {True: FAN_OUT}, f"tasks received eagerly (True) and by polling (False): {dict(received)}"
