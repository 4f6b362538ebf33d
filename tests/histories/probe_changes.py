"""Two changes to the tests' tiny `GraphProbeWorkflow`, registered under its name so that they replay its committed
history (`tests/fixtures/histories/GraphProbeWorkflow.json`, run with its echo activity): node `a` waits a second
before its echo, issuing a timer where the history recorded the activity. `ProbeWaitsFirst` makes the change as is
(a replay of the history fails), `ProbeWaitsFirstPatched` behind `workflow.patched` (it replays: only new runs
wait)."""

from datetime import timedelta

from temporalio import workflow

from tests.workflows.common.tiny import GraphProbeWorkflow

with workflow.unsafe.imports_passed_through():
    from models.events import RunStatus
    from tests.workflows.common.tiny_models import ProbeInput

PATCH = "probe-waits-before-echo"


@workflow.defn(name="GraphProbeWorkflow")
class ProbeWaitsFirst(GraphProbeWorkflow):
    """Node `a` with a timer before its activity: a changed command order."""

    @workflow.run
    async def run(self, input: ProbeInput) -> RunStatus:
        return await super().run(input)

    async def _a(self) -> str:
        await workflow.sleep(timedelta(seconds=1))
        return await super()._a()


@workflow.defn(name="GraphProbeWorkflow")
class ProbeWaitsFirstPatched(GraphProbeWorkflow):
    """The same change behind a patch: a run that started before it keeps its recorded commands."""

    @workflow.run
    async def run(self, input: ProbeInput) -> RunStatus:
        return await super().run(input)

    async def _a(self) -> str:
        if workflow.patched(PATCH):
            await workflow.sleep(timedelta(seconds=1))
        return await super()._a()
