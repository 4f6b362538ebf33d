"""A change to a workflow's commands fails the replay of its committed history, and the same change behind
`workflow.patched` replays: how a change ships without breaking runs in flight (docs/durable-changes.md)."""

from temporalio.workflow import NondeterminismError

from tests.histories.probe_changes import ProbeWaitsFirst, ProbeWaitsFirstPatched
from tests.histories.replay import HISTORY_DIR, load_history, strict_replayer
from tests.workflows.common.tiny import GraphProbeWorkflow

PROBE_HISTORY = HISTORY_DIR / "GraphProbeWorkflow.json"


async def test_the_committed_probe_history_replays_with_the_code_that_recorded_it() -> None:
    result = await strict_replayer([GraphProbeWorkflow]).replay_workflow(
        load_history(PROBE_HISTORY), raise_on_replay_failure=False
    )

    assert result.replay_failure is None


async def test_a_changed_command_order_fails_the_replay() -> None:
    result = await strict_replayer([ProbeWaitsFirst]).replay_workflow(
        load_history(PROBE_HISTORY), raise_on_replay_failure=False
    )

    assert isinstance(result.replay_failure, NondeterminismError), repr(result.replay_failure)


async def test_the_same_change_behind_a_patch_replays() -> None:
    result = await strict_replayer([ProbeWaitsFirstPatched]).replay_workflow(
        load_history(PROBE_HISTORY), raise_on_replay_failure=False
    )

    assert result.replay_failure is None
