"""The activities' one LLM-call path (`activities.common.llm_calls`) over the loopback provider: a valid JSON answer
takes one call, an invalid one is repaired in a second, one still invalid after the repair round is a permanent
failure with the caller's code (or handed back, for a node that has a use for it), a provider's errors become
Temporal failures that keep its Retry-After, and a tool loop's turn returns the model's tool calls."""

import dataclasses
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from pydantic import BaseModel, Field
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.common.llm_calls import (
    JsonQuestion,
    ask_json,
    json_answer,
    json_answer_or_invalid,
    llm_timeout,
    model_turn,
)
from llm import LLMClient, LLMRequest, Message
from llm.errors import OutputValidationError
from models.errors import ErrorCode
from models.settings import Settings
from runtime.llm_client import build_llm_client
from tests.llm.answers import chat_completion, llm_settings
from tests.llm.loopback import Loopback


class Verdict(BaseModel):
    """The answer the tests ask for."""

    label: str
    score: int = Field(ge=0, le=10)


QUESTION = JsonQuestion(
    node="demo_node", schema=Verdict, messages=[Message.user("judge this")], system="You judge.", temperature=0.2
)
VALID = {"label": "good", "score": 7}
INVALID = {"label": "good", "score": 42}


@pytest.fixture
async def llm(loopback: Loopback) -> AsyncIterator[LLMClient]:
    settings = Settings(_env_file=None, **llm_settings(loopback.base_url))
    async with httpx.AsyncClient() as http:
        client = build_llm_client(settings, http)
        assert client is not None
        yield client


async def test_a_valid_answer_takes_one_call(llm: LLMClient, loopback: Loopback) -> None:
    loopback.queue(chat_completion(VALID))

    answer = await ActivityEnvironment().run(json_answer, llm, QUESTION, code=ErrorCode.AGENT_FAILED)

    assert answer == Verdict(label="good", score=7)
    assert len(loopback.requests) == 1
    sent = loopback.requests[0].json()
    assert sent["temperature"] == 0.2 and sent["messages"][-1] == {"role": "user", "content": "judge this"}


async def test_an_invalid_answer_is_repaired_in_a_second_call(llm: LLMClient, loopback: Loopback) -> None:
    loopback.queue(chat_completion("a fine answer, no JSON"), chat_completion(VALID))

    answer = await ActivityEnvironment().run(json_answer, llm, QUESTION, code=ErrorCode.AGENT_FAILED)

    assert answer.score == 7
    assert len(loopback.requests) == 2
    repair = loopback.requests[1].json()["messages"]
    assert repair[-2]["content"] == "a fine answer, no JSON" and "not valid" in repair[-1]["content"]


async def test_an_answer_invalid_twice_is_a_permanent_failure_with_the_callers_code(
    llm: LLMClient, loopback: Loopback
) -> None:
    loopback.queue(chat_completion(INVALID), chat_completion(INVALID))

    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(json_answer, llm, QUESTION, code=ErrorCode.ROUTER_FAILED)

    assert caught.value.non_retryable and caught.value.type == "ROUTER_FAILED"
    assert caught.value.message == "LLM 的 JSON 不符合 demo_node 的格式：1 处错误"
    assert isinstance(caught.value.__cause__, OutputValidationError)
    assert len(loopback.requests) == 2


async def test_the_caller_may_word_the_permanent_failure(llm: LLMClient, loopback: Loopback) -> None:
    loopback.queue(chat_completion(INVALID), chat_completion(INVALID))

    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(
            json_answer,
            llm,
            QUESTION,
            code=ErrorCode.PLANNER_FAILED,
            message=lambda err: f"{len(err.errors)} problem(s) in {err.body}",
        )

    assert caught.value.type == "PLANNER_FAILED" and caught.value.message.startswith("1 problem(s) in {")


async def test_an_answer_invalid_twice_can_be_handed_back(llm: LLMClient, loopback: Loopback) -> None:
    loopback.queue(chat_completion(INVALID), chat_completion("still no JSON"))

    answer = await ActivityEnvironment().run(json_answer_or_invalid, llm, QUESTION)

    assert isinstance(answer, OutputValidationError) and answer.body == "still no JSON"
    assert len(loopback.requests) == 2


async def test_a_rate_limited_call_is_retried_after_the_providers_retry_after(
    llm: LLMClient, loopback: Loopback
) -> None:
    loopback.queue("openai_chat/rate_limited")

    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(json_answer, llm, QUESTION, code=ErrorCode.AGENT_FAILED)

    assert not caught.value.non_retryable and caught.value.type == "RateLimitError"
    assert caught.value.next_retry_delay == timedelta(seconds=7)
    assert len(loopback.requests) == 1  # Temporal retries, not the client


async def test_a_spent_quota_is_not_retried(llm: LLMClient, loopback: Loopback) -> None:
    loopback.queue("openai_chat/quota_exhausted")

    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(json_answer_or_invalid, llm, QUESTION)

    assert caught.value.non_retryable and caught.value.type == "QuotaExhaustedError"
    assert caught.value.next_retry_delay is None


async def test_ask_json_leaves_the_clients_errors_to_a_node_that_degrades(llm: LLMClient, loopback: Loopback) -> None:
    loopback.queue(chat_completion(INVALID), chat_completion(INVALID))

    with pytest.raises(OutputValidationError):
        await ActivityEnvironment().run(ask_json, llm, QUESTION)


async def test_a_tool_loop_turn_returns_the_models_tool_calls(llm: LLMClient, loopback: Loopback) -> None:
    loopback.queue("openai_chat/tools")

    response = await ActivityEnvironment().run(model_turn, llm, LLMRequest(messages=(Message.user("weather?"),)))

    assert [call.name for call in response.tool_calls] == ["get_weather", "get_time"]


async def test_a_tool_loop_turn_maps_the_providers_errors(llm: LLMClient, loopback: Loopback) -> None:
    loopback.queue("openai_chat/rate_limited")

    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(model_turn, llm, LLMRequest(messages=(Message.user("weather?"),)))

    assert not caught.value.non_retryable and caught.value.next_retry_delay == timedelta(seconds=7)


async def test_the_calls_timeout_ends_before_the_activitys_own() -> None:
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, start_to_close_timeout=timedelta(seconds=5))

    assert env.run(llm_timeout, 60.0) == 4.0
    assert env.run(llm_timeout, 3.0) == 3.0
