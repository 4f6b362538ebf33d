"""The image agent's LLM calls under Temporal: the client does not retry inside activities, Temporal does, after
the provider's own Retry-After; errors no retry can fix are not retried; the Critic's LLM review is retried like
any node's call, and its degrade to the keyword checks is announced."""

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.doubles import HangingImageApi
from tests.llm.answers import chat_completion
from tests.llm.loopback import Loopback
from tests.workflows.image.harness import Outcome, agent_harness
from workflows import policies

INTENT = {"action": "generate_image", "subject": "猫", "style": "赛博朋克", "confidence": 0.9, "reasoning": "生成"}
REVIEW = {"subject_covered": True, "style_covered": True, "suggestion": ""}


async def test_a_rate_limited_planner_is_retried_after_the_providers_retry_after(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    loopback.queue("openai_chat/rate_limited", chat_completion(INTENT), chat_completion(REVIEW))
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    planner = [a for a in harness.llm_attempts if a.activity == "image.planner"]
    assert [a.attempt for a in planner] == [1, 2]
    gap = (planner[1].started - planner[0].started).total_seconds()
    assert loopback.requests[0].path == "/v1/chat/completions"
    assert policies.NODE_RETRY.initial_interval.total_seconds() == 5  # the policy alone would wait 5 s
    assert round(gap) == 7  # the fixture's `retry-after: 7`
    assert outcome.state.intent is not None and outcome.state.intent.source == "llm"


async def test_a_spent_quota_is_not_retried_and_the_planner_falls_back_to_keywords(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    loopback.queue("openai_chat/quota_exhausted", chat_completion(REVIEW))
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    assert [a.attempt for a in harness.llm_attempts if a.activity == "image.planner"] == [1]
    intent = outcome.state.intent
    assert intent is not None and intent.source == "keywords" and intent.action == "generate_image"
    assert outcome.path[-2:] == ["genui", "stream_end"]


async def test_an_answer_still_invalid_after_one_repair_is_not_retried(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    loopback.queue(
        chat_completion("我觉得用户想画一只猫。"),
        chat_completion({"action": "draw", "confidence": 2}),
        chat_completion(REVIEW),
    )
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    assert [a.attempt for a in harness.llm_attempts if a.activity == "image.planner"] == [1, 1]  # answer + repair
    repair = loopback.requests[1].json()["messages"]
    assert repair[-2] == {"role": "assistant", "content": "我觉得用户想画一只猫。"}
    assert "not valid" in repair[-1]["content"]
    assert outcome.state.intent is not None and outcome.state.intent.source == "keywords"


async def turn_reviewed(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback, review: dict[str, Any]
) -> Outcome:
    """The README's turn with the LLM: the Planner's intent, then the Critic's `review` of the prompt."""
    loopback.queue(chat_completion(INTENT), chat_completion(review))
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        return await harness.run("生成一只赛博朋克风格的猫")


async def test_the_critic_asks_the_llm_whether_the_prompt_expresses_subject_and_style(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    review = {"subject_covered": True, "style_covered": False, "suggestion": "加入霓虹灯、雨夜街道等赛博朋克元素"}
    outcome = await turn_reviewed(env, tmp_path, style_store, loopback, review)

    asked = loopback.requests[1].json()
    assert "图像生成质量评审" in asked["messages"][0]["content"]
    assert asked["response_format"]["type"] == "json_schema"
    check = outcome.state.quality_check
    assert check is not None
    style = next(c for c in check.checks if c.name == "style")
    assert not style.passed and style.detail.startswith("LLM 评审")
    assert "加入霓虹灯、雨夜街道等赛博朋克元素" in check.suggestions


async def test_the_critic_s_review_of_the_prompt_is_asked_while_the_executor_draws(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    review = {"subject_covered": True, "style_covered": False, "suggestion": "加入霓虹灯元素"}
    outcome = await turn_reviewed(env, tmp_path, style_store, loopback, review)

    scheduled: dict[str, int] = {}
    async for event in outcome.handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled[event.activity_task_scheduled_event_attributes.activity_type.name] = event.event_id
    assert scheduled["image.critic_review"] == scheduled["image.executor"] + 1  # in the same workflow task
    assert "image.critic" not in scheduled  # the checks, with the review's answer, are a local activity
    check = outcome.state.quality_check
    assert check is not None and "加入霓虹灯元素" in check.suggestions  # the checks used the review


async def test_a_run_cancelled_while_the_executor_draws_cancels_the_review_of_its_prompt(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    loopback.queue(chat_completion(INTENT), dataclasses.replace(chat_completion(REVIEW), stall_before=3.0))
    api = HangingImageApi()
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url, image_provider=api) as harness:
        handle = await harness.start("生成一只赛博朋克风格的猫")
        while len(loopback.requests) < 2:  # the review is being answered, slowly, and the image never comes
            await env.sleep(0.1)
        await handle.cancel()
        events = await harness.events(handle.id)

    assert any(e.type == "error" and e.data["code"] == "CANCELLED" for e in events)
    scheduled: dict[int, str] = {}
    cancel_requested: list[str] = []
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled[event.event_id] = event.activity_task_scheduled_event_attributes.activity_type.name
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED:
            cancel_requested.append(scheduled[event.activity_task_cancel_requested_event_attributes.scheduled_event_id])
    assert sorted(cancel_requested) == ["image.critic_review", "image.executor"]


async def test_a_rate_limited_critic_review_is_retried_like_any_node(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    review = {"subject_covered": True, "style_covered": False, "suggestion": "加入霓虹灯元素"}
    loopback.queue(chat_completion(INTENT), "openai_chat/rate_limited", chat_completion(review))
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    assert [a.attempt for a in harness.llm_attempts if a.activity == "image.critic_review"] == [1, 2]
    check = outcome.state.quality_check
    assert check is not None and not check.llm_review_failed and "加入霓虹灯元素" in check.suggestions


async def test_a_critic_review_that_fails_for_good_is_announced_and_the_keyword_checks_answer(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore, loopback: Loopback
) -> None:
    loopback.queue(chat_completion(INTENT), "openai_chat/quota_exhausted")
    async with agent_harness(env, tmp_path, style_store, llm_base_url=loopback.base_url) as harness:
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    check = outcome.state.quality_check
    assert check is not None and check.passed and not check.degraded and check.llm_review_failed
    assert not any(c.detail.startswith("LLM 评审") for c in check.checks)
    [degraded] = [e.data for e in outcome.events if e.type == "thought_log" and e.data.get("code") == "AGENT_DEGRADED"]
    assert degraded["node"] == "critic" and degraded["level"] == "warning" and "规则检查" in degraded["message"]


@asynccontextmanager
async def hung_provider() -> AsyncIterator[str]:
    """An LLM provider that accepts every connection and never answers."""
    connections: list[asyncio.StreamWriter] = []

    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        await reader.read()  # until the client gives up and closes

    server = await asyncio.start_server(hang, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}"
        for writer in connections:
            writer.close()


async def test_a_hung_provider_still_gives_a_keyword_intent_and_an_image_within_the_deadline(
    env: WorkflowEnvironment, tmp_path: Path, style_store: LanceStyleStore
) -> None:
    """Rule 13: the Planner's LLM budget leaves room for its keyword fallback and the rest of the run.

    The provider hangs on every call (the Planner's and the Critic's review) until the client's default 8 s
    timeout, so this test takes about 25 s of real time: the test server cannot skip time while a call hangs.
    Without the budget the Planner's four attempts and their backoff would take 59 s before the fallback."""
    async with (
        hung_provider() as base_url,
        agent_harness(env, tmp_path, style_store, llm_base_url=base_url) as harness,
    ):
        outcome = await harness.run("生成一只赛博朋克风格的猫")

    intent = outcome.state.intent
    assert intent is not None and intent.source == "keywords" and intent.action == "generate_image"
    assert outcome.path[-2:] == ["genui", "stream_end"] and outcome.result.status == "completed"
    assert outcome.state.execution_result is not None
    assert [a.attempt for a in harness.llm_attempts if a.activity == "image.planner"] == [1, 2]
    elapsed = outcome.events[-1].ts - outcome.events[0].ts
    assert elapsed < timedelta(seconds=60), f"the run took {elapsed} on the workflow clock"
