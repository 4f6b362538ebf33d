"""A worker killed mid-run: a new worker replays the run and finishes it, and the event stream loses nothing."""

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import WorkflowExecutionStatus
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from api.streaming import run_events
from models.image.runs import ImageAgentInput
from models.image.state import UserInput
from models.search_attributes import dev_server_flags
from tests.conftest import DEV_SERVER
from tests.stack_process import REPO
from workflows.image.workflow import ImageAgentWorkflow

pytestmark = pytest.mark.e2e


@pytest.fixture
async def dev_env() -> AsyncIterator[WorkflowEnvironment]:
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(DEV_SERVER),
        data_converter=pydantic_data_converter,
        dev_server_extra_args=dev_server_flags(),
    ) as env:
        yield env


def start_worker(env: WorkflowEnvironment, data_dir: Path, task_queue_prefix: str) -> subprocess.Popen[bytes]:
    host, port = env.client.service_client.config.target_host.rsplit(":", 1)
    worker_env = os.environ | {
        "TEMPORAL_HOST": host,
        "TEMPORAL_PORT": port,
        "DATA_DIR": str(data_dir),
        "TASK_QUEUE_PREFIX": task_queue_prefix,
    }
    return subprocess.Popen([sys.executable, "worker.py"], cwd=REPO, env=worker_env)


async def test_a_killed_worker_is_replaced_and_the_run_completes(dev_env: WorkflowEnvironment, tmp_path: Path) -> None:
    prefix = f"crash-{uuid.uuid4().hex[:8]}-"
    worker = start_worker(dev_env, tmp_path, prefix)
    run_id = f"image-crash-{uuid.uuid4().hex[:6]}"
    handle = await dev_env.client.start_workflow(
        ImageAgentWorkflow.run,
        ImageAgentInput(session_id="crash", user_input=UserInput(text="生成一只赛博朋克风格的猫")),
        id=run_id,
        task_queue=f"{prefix}image",
    )
    events = []
    replacement = None
    try:
        async for event in run_events(dev_env.client, run_id):
            events.append(event)
            if replacement is None and event.node == "executor":
                worker.send_signal(signal.SIGKILL)  # mid-run, while the Executor is being scheduled
                worker.wait()
                replacement = start_worker(dev_env, tmp_path, prefix)
        result = await asyncio.wait_for(handle.result(), timeout=60)
    finally:
        for process in (worker, replacement):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=30)

    assert replacement is not None, "the worker was never killed"
    assert (await handle.describe()).status == WorkflowExecutionStatus.COMPLETED
    assert result.status == "completed" and result.previous is not None
    assert [e.seq for e in events] == list(range(len(events)))
    assert events[-1].type == "stream_end" and events[-1].data["status"] == "completed"
