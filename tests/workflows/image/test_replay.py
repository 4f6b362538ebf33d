"""Recorded histories replay under the strict sandbox.

The worker runs workflows unsandboxed (`worker.WORKFLOW_RUNNER`, for speed), so this is where the sandbox's
checks still apply to the workflow code: a non-deterministic call (the clock, randomness, I/O) or a change that
no longer matches recorded histories fails here.
"""

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from tests.workflows.image.harness import Harness
from tests.workflows.image.test_session import OWNER, result_of, submit
from workflows.image.session import session_workflow_id
from workflows.registry import REGISTRY


def strict_replayer() -> Replayer:
    return Replayer(
        workflows=[entry.workflow for entry in REGISTRY],
        data_converter=pydantic_data_converter,
        workflow_runner=SandboxedWorkflowRunner(),
    )


async def test_image_runs_replay_under_the_strict_sandbox(harness: Harness) -> None:
    runs = [await harness.run("生成一只赛博朋克风格的猫"), await harness.run("😀"), await harness.run("画一只猫")]

    replayer = strict_replayer()
    for outcome in runs:
        result = await replayer.replay_workflow(await outcome.handle.fetch_history())
        assert result.replay_failure is None


async def test_a_session_with_a_queued_turn_replays_under_the_strict_sandbox(harness: Harness) -> None:
    first = await submit(harness, "replay", "生成一只赛博朋克风格的猫")
    second = await submit(harness, "replay", "再调整一下，大一点")  # queued: the session signals `begin`
    await result_of(harness.env, second.run_id)

    replayer = strict_replayer()
    for workflow_id in (session_workflow_id(OWNER, "replay"), first.run_id, second.run_id):
        history = await harness.env.client.get_workflow_handle(workflow_id).fetch_history()
        result = await replayer.replay_workflow(history)
        assert result.replay_failure is None, workflow_id
