"""Issue 50 #11: a change decided right after a local activity (`workflow.patched`) cannot replay a history whose
workflow task completed with only that activity's marker (the shape a Temporal server restart left in
../shared/evidence/image-turn-after-temporal-restart.history.json, made here by `tests.histories.task_split`); the
project's `patched` (`workflows.common.patches`, decided in the run's first activation) replays it, and so does a
real image turn with the LLM split after each of its local activities."""

import uuid
from pathlib import Path

from temporalio.client import WorkflowHistory
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker
from temporalio.workflow import NondeterminismError

from stores.style_store import LanceStyleStore
from tests.histories.late_patch import PatchAfterLocalActivity, PatchDecidedAtStart, draw, lookup
from tests.histories.replay import strict_replayer
from tests.histories.task_split import local_activity_markers, split_after_local_activity
from tests.llm.answers import chat_completion
from tests.llm.loopback import Loopback
from tests.workflows.image.harness import agent_harness
from tests.workflows.image.test_planner_llm import INTENT, REVIEW
from workflows.image.workflow import ImageAgentWorkflow


async def recorded(env: WorkflowEnvironment, workflow: type) -> WorkflowHistory:
    queue = f"late-patch-{uuid.uuid4()}"
    async with Worker(env.client, task_queue=queue, workflows=[workflow], activities=[lookup, draw]):
        handle = await env.client.start_workflow(workflow.run, id=f"{queue}-run", task_queue=queue)  # type: ignore[attr-defined]
        assert await handle.result() == "a picture in styles"
        return await handle.fetch_history()


async def replay_failure(history: WorkflowHistory, workflows: list[type]) -> Exception | None:
    result = await strict_replayer(workflows).replay_workflow(history, raise_on_replay_failure=False)
    return result.replay_failure


async def test_workflow_patched_after_a_local_activity_fails_the_replay_of_a_task_split_there(
    env: WorkflowEnvironment,
) -> None:
    history = await recorded(env, PatchAfterLocalActivity)
    [marker] = local_activity_markers(history)

    assert await replay_failure(history, [PatchAfterLocalActivity]) is None
    failure = await replay_failure(split_after_local_activity(history, marker), [PatchAfterLocalActivity])
    assert isinstance(failure, NondeterminismError) and "no corresponding change command" in str(failure)


async def test_a_change_decided_at_the_run_s_start_replays_a_task_split_after_a_local_activity(
    env: WorkflowEnvironment,
) -> None:
    history = await recorded(env, PatchDecidedAtStart)
    [marker] = local_activity_markers(history)

    assert await replay_failure(history, [PatchDecidedAtStart]) is None
    assert await replay_failure(split_after_local_activity(history, marker), [PatchDecidedAtStart]) is None


async def test_an_image_turn_with_the_llm_replays_split_after_any_of_its_local_activities(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    loopback.queue(chat_completion(INTENT), chat_completion(REVIEW))
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")
    history = await outcome.handle.fetch_history()
    markers = local_activity_markers(history)

    assert len(markers) >= 2  # the turn's own local activities, RAG's among them, as in the evidence
    for marker in markers:
        failure = await replay_failure(split_after_local_activity(history, marker), [ImageAgentWorkflow])
        assert failure is None, f"split after event {marker}: {failure!r}"
