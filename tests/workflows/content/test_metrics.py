"""Issue 9 item 6: every precondition correction is counted in the run's state and emitted as the
`content.precondition_corrections` metric (by target node) through the worker runtime's metrics, which
`OTEL_EXPORTER=otlp` sends to an OpenTelemetry collector. Here the runtime's metric buffer stands in for the
collector."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import MetricBuffer, Runtime, TelemetryConfig
from temporalio.testing import WorkflowEnvironment

from tests.llm.loopback import Loopback
from tests.workflows.content.harness import ContentHarness, content_harness
from tests.workflows.content.scripts import REFUSED, decide
from workflows.content.supervisor import CORRECTIONS_METRIC


@pytest.fixture
def buffer() -> MetricBuffer:
    return MetricBuffer(10_000)


@pytest.fixture
async def metered(
    env: WorkflowEnvironment, tmp_path: Path, loopback: Loopback, buffer: MetricBuffer
) -> AsyncIterator[ContentHarness]:
    runtime = Runtime(telemetry=TelemetryConfig(metrics=buffer))
    client = await Client.connect(
        env.client.service_client.config.target_host,
        namespace=env.client.namespace,
        data_converter=pydantic_data_converter,
        runtime=runtime,
    )
    async with content_harness(env, tmp_path, llm_base_url=loopback.base_url, worker_client=client) as harness:
        yield harness


async def test_precondition_corrections_are_emitted_as_a_metric_by_target_node(
    metered: ContentHarness, loopback: Loopback, buffer: MetricBuffer
) -> None:
    loopback.queue(decide("writer_agent"), REFUSED, decide("image_agent"), REFUSED, decide("writer_agent"), REFUSED)

    outcome = await metered.run("打工人的咖啡续命指南", max_iterations=3)

    assert outcome.state.metadata.precondition_corrections == {"writer_agent": 1, "image_agent": 1}
    counted: dict[str, int] = {}
    for update in buffer.retrieve_updates():
        if update.metric.name == CORRECTIONS_METRIC:
            target = str(update.attributes["target_node"])
            counted[target] = counted.get(target, 0) + int(update.value)
    assert counted == {"writer_agent": 1, "image_agent": 1}
