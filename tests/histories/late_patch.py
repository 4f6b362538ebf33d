"""Two tiny workflows that decide a change right after a local activity, for the shape of
../shared/evidence/image-turn-after-temporal-restart.history.json (`tests.histories.task_split`):
`PatchAfterLocalActivity` asks `workflow.patched` there, `PatchDecidedAtStart` the project's way
(`workflows.common.patches`: decided in the run's first activation)."""

from datetime import timedelta

from temporalio import activity, workflow

from workflows.common.patches import decide_at_start, patched

CHANGE = "tiny-change-after-local-activity"
TIMEOUT = timedelta(seconds=5)


@activity.defn(name="tiny_lookup")
async def lookup() -> str:
    return "styles"


@activity.defn(name="tiny_draw")
async def draw(styles: str) -> str:
    return f"a picture in {styles}"


@workflow.defn
class PatchAfterLocalActivity:
    """Looks up styles (a local activity), then draws when the change is on, asked of `workflow.patched` there."""

    @workflow.run
    async def run(self) -> str:
        styles = await workflow.execute_local_activity(lookup, start_to_close_timeout=TIMEOUT)
        if workflow.patched(CHANGE):
            return await workflow.execute_activity(draw, styles, start_to_close_timeout=TIMEOUT)
        return styles


@workflow.defn
class PatchDecidedAtStart:
    """The same, with the change decided the project's way."""

    @workflow.run
    async def run(self) -> str:
        decide_at_start()
        styles = await workflow.execute_local_activity(lookup, start_to_close_timeout=TIMEOUT)
        if patched(CHANGE):
            return await workflow.execute_activity(draw, styles, start_to_close_timeout=TIMEOUT)
        return styles
