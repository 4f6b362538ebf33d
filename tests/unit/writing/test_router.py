"""Req 1 (router): the keyword fast path answers without an LLM call; otherwise the LLM's JSON answer names the
intent (the loopback server stands in for the provider); its errors become Temporal failures; offline, an
unrecognised request is GENERAL_CHAT with a low confidence."""

from collections.abc import AsyncIterator

import httpx
import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.writing.router import FALLBACK_CONFIDENCE, Router
from models.settings import Settings
from models.writing.intents import CreationPhase, WritingIntent
from models.writing.nodes import RouteRequest
from runtime.llm_client import build_llm_client
from tests.llm.answers import chat_completion, llm_settings
from tests.llm.loopback import Loopback
from tests.simulator.fixtures import simulator_settings
from tests.simulator.server import Simulator


@pytest.fixture
async def llm_router(loopback: Loopback) -> AsyncIterator[Router]:
    settings = Settings(_env_file=None, **llm_settings(loopback.base_url))
    async with httpx.AsyncClient() as http:
        yield Router(build_llm_client(settings, http))


async def test_req_1_a_recognised_request_needs_no_llm_call(llm_router: Router, loopback: Loopback) -> None:
    result = await ActivityEnvironment().run(llm_router.route, RouteRequest(text="根据大纲写第三章"))

    assert result.intent == WritingIntent.OUTLINE_TO_CHAPTER and result.source == "rules"
    assert loopback.requests == []


async def test_req_1_an_unrecognised_request_is_routed_by_the_llms_json(llm_router: Router, loopback: Loopback) -> None:
    loopback.queue(chat_completion({"intent": "PLAN_WORLD", "confidence": 0.8, "entities": ["青云宗"]}))

    result = await ActivityEnvironment().run(llm_router.route, RouteRequest(text="青云宗在山上还是海边比较好"))

    assert result.intent == WritingIntent.PLAN_WORLD and result.source == "llm" and result.confidence == 0.8
    assert result.phase == CreationPhase.WORLDBUILDING  # the intent's phase when the answer names none
    assert [(e.kind, e.text) for e in result.entities] == [("named", "青云宗")]
    assert loopback.requests[0].path == "/v1/chat/completions"


async def test_req_1_without_an_llm_an_unrecognised_request_is_general_chat() -> None:
    result = await ActivityEnvironment().run(Router(None).route, RouteRequest(text="嗯"))

    assert result.intent == WritingIntent.GENERAL_CHAT
    assert result.source == "fallback" and result.confidence == FALLBACK_CONFIDENCE


async def test_req_1_after_the_llm_path_failed_the_router_does_not_call_it_again(
    llm_router: Router, loopback: Loopback
) -> None:
    result = await ActivityEnvironment().run(llm_router.route, RouteRequest(text="嗯", use_llm=False))

    assert result.source == "fallback" and loopback.requests == []


async def test_req_1_a_rate_limited_llm_is_retried_after_its_retry_after(
    llm_router: Router, loopback: Loopback
) -> None:
    loopback.queue("openai_chat/rate_limited")

    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(llm_router.route, RouteRequest(text="嗯"))

    assert not caught.value.non_retryable
    assert caught.value.next_retry_delay is not None and caught.value.next_retry_delay.total_seconds() == 7


async def test_req_1_an_answer_invalid_after_one_repair_is_not_retried(llm_router: Router, loopback: Loopback) -> None:
    loopback.queue(chat_completion("这是闲聊。"), chat_completion({"intent": "CHAT", "confidence": 2}))

    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(llm_router.route, RouteRequest(text="嗯"))

    assert caught.value.non_retryable and caught.value.type == "ROUTER_FAILED"


@pytest.fixture
async def simulated_router(simulator: Simulator) -> AsyncIterator[Router]:
    settings = Settings(_env_file=None, **simulator_settings(simulator))
    async with httpx.AsyncClient() as http:
        yield Router(build_llm_client(settings, http))


@pytest.mark.parametrize("text", ["第三章写得怎么样？", "来点灵感"])
async def test_issue_25_a_general_rule_does_not_pre_empt_a_configured_model(
    simulated_router: Router, simulator: Simulator, text: str
) -> None:
    result = await ActivityEnvironment().run(simulated_router.route, RouteRequest(text=text))

    [call] = simulator.log
    assert result.source == "llm" and result.intent == call.value["intent"]


async def test_issue_25_an_unambiguous_rule_answers_without_the_model(
    simulated_router: Router, simulator: Simulator
) -> None:
    result = await ActivityEnvironment().run(simulated_router.route, RouteRequest(text="给我的小说写个简介"))

    assert result.intent == WritingIntent.SUMMARIZE and result.source == "rules" and simulator.log == []


async def test_issue_25_once_the_model_failed_the_first_matching_rule_answers() -> None:
    result = await ActivityEnvironment().run(Router(None).route, RouteRequest(text="第三章写得怎么样？", use_llm=False))

    assert result.intent == WritingIntent.ANALYZE_STYLE and result.source == "rules"
