"""Faults the image agent survives: retries on the declared schedule, degrade paths, timeouts, the 60 s limit."""

import itertools
from datetime import timedelta
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.doubles import (
    BlankImageApi,
    CountingVectorStore,
    HangingImageApi,
    ImagesUnreadableStore,
    UnavailableImageApi,
    UnreachableVectorStore,
)
from tests.llm.answers import chat_completion
from tests.llm.loopback import Loopback
from tests.workflows.harness import assert_declared
from tests.workflows.image.harness import agent_harness
from workflows import policies
from workflows.image.graph import GRAPH


async def test_executor_retries_after_5_10_20_seconds_then_succeeds(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    api = UnavailableImageApi(failures=3)
    async with agent_harness(env, tmp_path, style_store, image_provider=api) as harness:
        outcome = await harness.run("生成一只猫")

    gaps = [(b - a).total_seconds() for a, b in zip(api.calls, api.calls[1:], strict=False)]
    assert len(api.calls) == 4
    assert [round(g) for g in gaps] == [5, 10, 20]
    assert outcome.path[-2:] == ["genui", "stream_end"]


async def test_executor_failing_every_retry_goes_to_the_error_handler(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    api = UnavailableImageApi()
    async with agent_harness(env, tmp_path, style_store, image_provider=api) as harness:
        outcome = await harness.run("生成一只猫")

    assert len(api.calls) == 4  # the first attempt and 3 retries
    assert outcome.path == ["validate_input", "planner", "executor", "error_handler", "stream_end"]
    assert outcome.error_code == "EXECUTION_FAILED"
    assert "503" in outcome.of_type("error")[0].data["message"]


async def test_rag_failure_degrades_to_the_original_prompt(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    store = UnreachableVectorStore()
    async with agent_harness(env, tmp_path, style_store, rag_store=store) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    assert store.calls == 2  # retried after 5 s; the next retry would pass RAG's 10 s budget
    enhanced = outcome.state.enhanced_prompt
    assert enhanced is not None and enhanced.final == enhanced.original and not enhanced.retrieved
    assert outcome.path[:4] == ["validate_input", "planner", "rag", "executor"]
    assert outcome.path[-2:] == ["genui", "stream_end"]


async def test_planner_llm_failure_degrades_to_keyword_matching(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    review = {"subject_covered": True, "style_covered": True}
    loopback.queue(*["openai_chat/server_error"] * 3, chat_completion(review))
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    # Retries after 5 s and 10 s; the next (20 s later) would pass the Planner's 25 s budget, so it degrades.
    attempts = [a for a in harness.llm_attempts if a.activity == "image.planner"]
    assert [a.attempt for a in attempts] == [1, 2, 3]
    assert [round((b.started - a.started).total_seconds()) for a, b in itertools.pairwise(attempts)] == [
        5,
        10,
    ]
    intent = outcome.state.intent
    assert intent is not None and intent.source == "keywords" and intent.action == "generate_image"
    assert any("降级" in e.data["message"] for e in outcome.of_type("thought_log"))
    assert outcome.path[-2:] == ["genui", "stream_end"]


async def test_planner_uses_the_llm_when_it_answers(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    answer = {"action": "generate_image", "subject": "猫", "style": "赛博朋克", "confidence": 0.92, "reasoning": "生成"}
    review = {"subject_covered": True, "style_covered": True, "suggestion": ""}
    loopback.queue(chat_completion(answer), chat_completion(review))
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    intent = outcome.state.intent
    assert intent is not None and intent.source == "llm" and intent.confidence == 0.92
    messages = loopback.requests[0].json()["messages"]
    assert messages[0]["role"] == "system" and "generate_image" in messages[0]["content"]
    assert messages[-1] == {"role": "user", "content": "生成一只赛博朋克风格的猫"}


async def test_low_llm_confidence_counts_as_unknown(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    loopback.queue(chat_completion({"action": "generate_image", "subject": "猫", "confidence": 0.4}))
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        outcome = await harness.run("猫猫?")

    assert outcome.state.intent is not None and outcome.state.intent.action == "unknown"
    assert outcome.error_code == "INTENT_UNKNOWN"


async def test_critic_regenerates_three_times_then_returns_with_hints(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    api = BlankImageApi()
    store = CountingVectorStore(style_store)
    async with agent_harness(env, tmp_path, style_store, image_provider=api, rag_store=store) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    assert api.calls == 4
    assert store.calls == 1, "a regeneration reuses the run's retrieval (seed 004 §10.2), it does not search again"
    assert sum("复用" in e.data["message"] for e in outcome.of_type("thought_log") if e.node == "rag") == 3
    assert outcome.state.metadata.retry_count == 3
    assert outcome.state.metadata.transitions.count(("critic", "rag")) == 3
    assert_declared(GRAPH, outcome.state.metadata.transitions)
    check = outcome.state.quality_check
    assert check is not None and not check.passed and check.needs_regeneration and check.suggestions
    panel = [e for e in outcome.of_type("gen_ui_component") if e.data["widgetType"] == "ActionPanel"][-1]
    assert panel.node == "genui"
    assert panel.data["props"]["actions"][0]["id"] == "retry"
    assert outcome.path[-2:] == ["genui", "stream_end"]


async def test_critic_failure_degrades_to_passed(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    blobs = ImagesUnreadableStore(tmp_path / "blobs")
    async with agent_harness(env, tmp_path, style_store, blobs=blobs) as harness:
        outcome = await harness.run("画一只猫")

    check = outcome.state.quality_check
    assert check is not None and check.passed and check.degraded
    assert outcome.path[-3:] == ["critic", "genui", "stream_end"]


async def test_every_node_declares_its_timeout_and_the_shared_retry_policy(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    """Offline, the millisecond nodes run as local activities (one marker each in the history, no round trip);
    the Executor is a regular activity. Every one has the declared timeout and the 5/10/20 s retry schedule."""
    async with agent_harness(env, tmp_path, style_store) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    scheduled, markers = {}, []
    async for event in outcome.handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            scheduled[attrs.activity_type.name] = attrs
        elif event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
            markers.append(event.marker_recorded_event_attributes.marker_name)
    assert list(scheduled) == ["image.executor"] and markers.count("core_local_activity") == 4
    executor = scheduled["image.executor"]
    assert executor.start_to_close_timeout.ToSeconds() == 5
    retry = executor.retry_policy
    assert (retry.initial_interval.ToSeconds(), retry.backoff_coefficient) == (5, 2.0)
    assert (retry.maximum_interval.ToSeconds(), retry.maximum_attempts) == (20, 4)
    declared = {
        "validate_input": policies.IMAGE_VALIDATE_INPUT,
        "planner": policies.IMAGE_PLANNER_KEYWORDS,
        "rag": policies.IMAGE_RAG,
        "critic": policies.IMAGE_CRITIC_CHECKS,
    }
    assert all(options.local for options in declared.values())
    assert {node: options.start_to_close.total_seconds() for node, options in declared.items()} == {
        "validate_input": 5,
        "planner": 10,
        "rag": 5,
        "critic": 8,
    }
    assert {options.retry.initial_interval.total_seconds() for options in declared.values()} == {5}


async def test_an_executor_that_never_answers_times_out_after_5_seconds(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    """Real time: the test server does not skip time while an activity is running (4 attempts × 5 s)."""
    async with agent_harness(env, tmp_path, style_store, image_provider=HangingImageApi()) as harness:
        outcome = await harness.run("画一只猫")

    assert outcome.error_code == "EXECUTION_FAILED"
    assert "超时" in outcome.of_type("error")[0].data["message"]
    assert policies.IMAGE_EXECUTOR.start_to_close == timedelta(seconds=5)


async def test_a_run_past_its_deadline_ends_through_the_error_path(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    loopback.queue(*["openai_chat/server_error"] * 3)  # 15 s of backoff, then keywords
    loopback.queue(chat_completion({"subject_covered": True, "style_covered": True}))  # asked as the Executor starts
    api = UnavailableImageApi()  # another 35 s: a 40 s deadline fires first
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url, image_provider=api) as harness:
        outcome = await harness.run("画一只猫", deadline_seconds=40)

    assert outcome.error_code == "WORKFLOW_TIMEOUT"
    assert len(loopback.requests) == 4  # the Critic's review once, not once per attempt of the Executor
    error = outcome.of_type("error")[0]
    assert error.node == "error_handler" and error.data["node"] == "executor"
    assert outcome.events[-1].type == "stream_end" and outcome.events[-1].data["status"] == "timeout"
    assert outcome.path[-2:] == ["error_handler", "stream_end"]
    assert_declared(GRAPH, outcome.state.metadata.transitions)
    assert (await outcome.handle.describe()).status == WorkflowExecutionStatus.COMPLETED


async def test_cancelling_a_run_ends_it_with_an_error_and_stream_end(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    api = UnavailableImageApi()
    async with agent_harness(env, tmp_path, style_store, image_provider=api) as harness:
        handle = await harness.start("画一只猫")
        while not api.calls:
            await env.sleep(1)
        await handle.cancel()
        events = await harness.events(handle.id)

    assert (await handle.describe()).status == WorkflowExecutionStatus.CANCELED
    assert [e.type for e in events][-2:] == ["gen_ui_component", "stream_end"]
    assert any(e.type == "error" and e.data["code"] == "CANCELLED" for e in events)
    assert events[-1].data["status"] == "cancelled"
