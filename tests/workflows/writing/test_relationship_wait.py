"""Req 4.4's bound on the time-skipping server: a character design's request waits for its relationship update
at most `RELATIONSHIP_WAIT` on the workflow clock, then ends with `scheduled` naming the update's run."""

from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from tests.workflows.writing.conftest import CHAPTERS, CHARACTERS
from tests.workflows.writing.harness import writing_harness
from workflows.common.registration import Registry
from workflows.registry import REGISTRY
from workflows.writing.family import RELATIONSHIP_UPDATE
from workflows.writing.postprocessing import RELATIONSHIP_WAIT


async def test_req_4_4_an_update_slower_than_the_wait_is_scheduled_and_the_request_ends(
    env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """No worker serves the update (a deploy that has not reached it, or workers busy elsewhere): the request
    stops waiting after the bound and the client gets today's `scheduled`, naming the run that will do it. The
    update's workflow tasks keep failing, which holds the test server's clock: this test takes the bound's 30 s."""
    without_updates = Registry([entry for entry in REGISTRY if entry is not RELATIONSHIP_UPDATE])
    async with writing_harness(env, tmp_path, registry=without_updates) as writing:
        project = writing.project(chapters=CHAPTERS, characters=CHARACTERS)
        outcome = await writing.run(project, "设计一个新角色：码头的走私头目，他和林舟是旧识")
        update = outcome.one("relationship_update")
        await env.client.get_workflow_handle(update["runId"]).terminate("the test is over")
        history = await outcome.handle.fetch_history()

    assert outcome.result.status == "completed" and outcome.state.result is not None
    assert update["status"] == "scheduled" and update["added"] and not update["changes"]
    assert outcome.types[-3:] == ["relationship_update", "check_result", "done"]
    timers = [
        e.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta()
        for e in history.events
        if e.HasField("timer_started_event_attributes")
    ]
    assert RELATIONSHIP_WAIT in timers and any(e.HasField("timer_fired_event_attributes") for e in history.events)
