"""Writing runs replay under the strict sandbox (the worker runs them unsandboxed; see `worker.WORKFLOW_RUNNER`):
a single-agent run with parallel preprocessing, a chain that waited for the writer's choice, the relationship
update a character design started, a run whose text streamed in as signals, and runs in a conversation, which
record their turn (issue 28) behind the `writing-session-turns` patch."""

from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from tests.histories.replay import strict_replayer
from tests.llm.answers import chat_completion, chat_stream
from tests.llm.loopback import Loopback
from tests.workflows.harness import question_of
from tests.workflows.writing.conftest import CHAPTERS, CHARACTERS
from tests.workflows.writing.harness import WritingHarness, writing_harness
from tests.workflows.writing.test_chains import BRAINSTORM, choose


async def test_writing_runs_replay_under_the_strict_sandbox(writing: WritingHarness, project: str) -> None:
    content = await writing.run(project, "写一段林舟和苏念在码头打斗的场景")
    design = await writing.run(project, "设计一个新角色：码头的走私头目")
    chain = await writing.start(project, BRAINSTORM)
    await question_of(chain)
    await choose(chain, "C")
    await writing.finish(chain)
    relationships = design.one("relationship_update")["runId"]
    await writing.env.client.get_workflow_handle(relationships).result()

    replayer = strict_replayer()
    for workflow_id in (content.handle.id, design.handle.id, chain.id, relationships):
        history = await writing.env.client.get_workflow_handle(workflow_id).fetch_history()
        result = await replayer.replay_workflow(history)
        assert result.replay_failure is None, workflow_id


async def test_a_streamed_run_replays_under_the_strict_sandbox(
    env: WorkflowEnvironment, tmp_path: Path, loopback: Loopback
) -> None:
    async with writing_harness(env, tmp_path, llm_base_url=loopback.base_url) as writing:
        project = writing.project(chapters=CHAPTERS, characters=CHARACTERS)
        loopback.queue(chat_stream([f"第{i}句。" for i in range(80)]), chat_completion({"issues": []}))
        outcome = await writing.run(project, "写一段林舟和苏念在码头的场景")
        history = await outcome.handle.fetch_history()

    assert len(outcome.of_type("content")) > 1
    result = await strict_replayer().replay_workflow(history)
    assert result.replay_failure is None


async def test_runs_in_a_conversation_record_their_turn_and_replay(writing: WritingHarness, project: str) -> None:
    revision = await writing.run(project, "改写第一章，让节奏更紧凑", session_id="s1")
    follow_up = await writing.run(project, "再紧张一点", session_id="s1")

    replayer = strict_replayer()
    for outcome in (revision, follow_up):
        history = await outcome.handle.fetch_history()
        scheduled = [
            e.activity_task_scheduled_event_attributes.activity_type.name
            for e in history.events
            if e.HasField("activity_task_scheduled_event_attributes")
        ]
        markers = [e for e in history.events if e.HasField("marker_recorded_event_attributes")]
        assert scheduled[-1] == "writing.record_turn" and markers, "the turn is recorded behind the patch's marker"
        result = await replayer.replay_workflow(history)
        assert result.replay_failure is None
    assert follow_up.state.result is not None and follow_up.state.result.target_chapter_position == 1
