"""Image runs recorded in this test replay under the strict sandbox (the worker runs them unsandboxed; see
`worker.WORKFLOW_RUNNER`): a run that renders, one the validator refuses and one without a style, so the sandbox's
checks (the clock, randomness, I/O) cover each path. The committed histories (`tests/workflows/
test_committed_histories.py`) cover a run and a session with a queued turn recorded by older code."""

from tests.histories.replay import strict_replayer
from tests.workflows.image.harness import Harness


async def test_image_runs_replay_under_the_strict_sandbox(harness: Harness) -> None:
    runs = [await harness.run("生成一只赛博朋克风格的猫"), await harness.run("😀"), await harness.run("画一只猫")]

    replayer = strict_replayer()
    for outcome in runs:
        result = await replayer.replay_workflow(await outcome.handle.fetch_history())
        assert result.replay_failure is None
