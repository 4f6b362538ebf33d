"""Content runs replay under the strict sandbox (the worker runs them unsandboxed; see `worker.WORKFLOW_RUNNER`):
an offline run with reference images and a clarification, and a run whose Supervisor used tools and was
corrected."""

from models.human_input import InputAnswer
from tests.histories.replay import strict_replayer
from tests.llm.loopback import Loopback
from tests.workflows.content.harness import ContentHarness
from tests.workflows.content.scripts import REFUSED, decide, tools
from tests.workflows.content.test_offline_runs import waiting
from workflows.common.human_input import INPUT_UPDATE


async def test_an_offline_run_with_a_clarification_replays(content: ContentHarness) -> None:
    handle = await content.start("打工人的咖啡续命指南", platform=None, references=[content.reference("油画 静物")])
    await waiting(handle)
    await handle.execute_update(INPUT_UPDATE, InputAnswer(answer="douyin"))
    outcome = await content.finish(handle)

    result = await strict_replayer().replay_workflow(await outcome.handle.fetch_history())

    assert result.replay_failure is None
    assert outcome.state.metadata.end_reason == "approved"


async def test_a_scripted_run_with_tools_and_a_correction_replays(scripted: ContentHarness, loopback: Loopback) -> None:
    loopback.queue(tools(("c1", "inspect_artifact", {"name": "brief"})), decide("writer_agent"), REFUSED)
    outcome = await scripted.run("打工人的咖啡续命指南", max_iterations=1)

    result = await strict_replayer().replay_workflow(await outcome.handle.fetch_history())

    assert result.replay_failure is None
    assert outcome.state.metadata.precondition_corrections == {"writer_agent": 1}
