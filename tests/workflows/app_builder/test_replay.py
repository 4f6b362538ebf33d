"""A scripted app run with tool loops, a refused plan and repair rounds replays under the strict sandbox (the worker
runs workflows unsandboxed; see `worker.WORKFLOW_RUNNER`). An offline run and a tool-loop run are committed
histories (`tests/workflows/test_committed_histories.py`)."""

from tests.histories.replay import strict_replayer
from tests.llm.loopback import Loopback
from tests.workflows.app_builder.harness import AppHarness
from tests.workflows.app_builder.scripts import ScriptedModel, task
from tests.workflows.app_builder.test_llm_runs import MISSING_IMPORT, gated


async def test_a_scripted_run_with_a_plan_repair_and_repair_rounds_replays(
    scripted: AppHarness, loopback: Loopback
) -> None:
    cyclic = [task("scaffold", "scaffold-agent", ["scaffold"])]
    plan = gated(task("pages", "page-agent", ["scaffold"]))
    loopback.responder = ScriptedModel(plans=[cyclic, plan], writes={"pages": {"src/App.tsx": MISSING_IMPORT}})
    outcome = await scripted.run()

    result = await strict_replayer().replay_workflow(await outcome.handle.fetch_history())

    assert result.replay_failure is None
    assert outcome.state.plan_repaired and outcome.state.repair_rounds == 2
