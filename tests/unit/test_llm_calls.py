"""The activities' one LLM-call path (`activities.common.llm_calls`) over the loopback provider: a valid JSON answer
takes one call, an invalid one is repaired in a second, one still invalid after the repair round is a permanent
failure with the caller's code (or handed back, for a node that has a use for it), a provider's errors become
Temporal failures that keep its Retry-After, and a tool loop's turn returns the model's tool calls."""

import dataclasses
import logging
import time
from datetime import timedelta

import httpx
import pytest
from pydantic import BaseModel, Field
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory
from temporalio.testing import ActivityEnvironment

from activities.common.llm_calls import (
    HEARTBEAT_SHARE,
    JsonQuestion,
    ask_json,
    choice,
    json_answer,
    json_answer_or_invalid,
    llm_failure,
    model_turn,
    narrowed,
)
from llm import LLMClient, LLMRequest, Message
from llm.errors import OutputValidationError, QuotaExhaustedError, RateLimitError
from models.errors import ErrorCode
from tests.llm.answers import chat_completion, chat_stream
from tests.llm.conftest import http, llm
from tests.llm.loopback import Loopback
from tests.simulator.clients import PROTOCOLS, client_for
from tests.simulator.examples import Review
from tests.simulator.profiles import REALISTIC, Profile
from tests.simulator.quirks import Quirk, QuirkRule
from tests.simulator.requests import Protocol
from tests.simulator.server import Simulator


class Verdict(BaseModel):
    """The answer the tests ask for."""

    label: str
    score: int = Field(ge=0, le=10)


__all__ = ["http", "llm"]

QUESTION = JsonQuestion(
    node="demo_node", schema=Verdict, messages=[Message.user("judge this")], system="You judge.", temperature=0.2
)
REVIEW = JsonQuestion(node="reviewer", schema=Review, messages=[Message.user("请评审第二章")])
VALID = {"label": "good", "score": 7}
INVALID = {"label": "good", "score": 42}


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


async def test_a_narrowed_question_sends_the_choices_and_repairs_an_answer_outside_them(
    llm: LLMClient, loopback: Loopback
) -> None:
    schema = narrowed(Verdict, label=choice(["good", "bad"]))
    loopback.queue(chat_completion(VALID | {"label": "great"}), chat_completion(VALID))

    answer = await ActivityEnvironment().run(
        json_answer, llm, dataclasses.replace(QUESTION, schema=schema), code=ErrorCode.AGENT_FAILED
    )

    assert isinstance(answer, Verdict) and answer.label == "good"
    sent = loopback.requests[0].json()["response_format"]["json_schema"]["schema"]["properties"]
    assert sent["label"]["enum"] == ["good", "bad"] and sent["score"] == {
        "maximum": 10,
        "minimum": 0,
        "title": "Score",
        "type": "integer",
    }
    repair = loopback.requests[1].json()["messages"][-1]["content"]
    assert "label: Input should be 'good' or 'bad'" in repair


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


def simulated_client(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, timeout: float, **settings: object
) -> LLMClient:
    """A worker's client whose model is the simulator, with `LLM_TIMEOUT_SECONDS` = `timeout`."""
    return client_for(simulator, protocol, http, llm_timeout_seconds=timeout, **settings)


def node_environment(
    start_to_close: float, heartbeat: float | None = None, activity_type: str = "test.reviewer"
) -> ActivityEnvironment:
    """An activity environment declaring a node's timeouts, as `workflows.policies` would, for the activity
    registered as `activity_type`."""
    env = ActivityEnvironment()
    env.info = dataclasses.replace(
        env.info,
        activity_type=activity_type,
        start_to_close_timeout=timedelta(seconds=start_to_close),
        heartbeat_timeout=None if heartbeat is None else timedelta(seconds=heartbeat),
    )
    return env


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_call_gets_its_nodes_start_to_close_not_llm_timeout_seconds(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    """Issue 25: a 90 s node got min(LLM_TIMEOUT_SECONDS, 89 s); here an answer slower than the setting arrives."""
    simulator.profile, simulator.time_scale = REALISTIC, 0.1
    llm = simulated_client(simulator, http, protocol, timeout=0.1)

    answer = await node_environment(start_to_close=5).run(json_answer, llm, REVIEW, code=ErrorCode.AGENT_FAILED)

    assert isinstance(answer, Review) and simulator.log[0].generation_seconds > 0.1
    assert not simulator.log[0].request.stream, "a node without a heartbeat timeout gets its answer whole"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_node_with_a_heartbeat_timeout_streams_and_heartbeats_while_chunks_come_not_per_chunk(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    simulator.profile, simulator.time_scale = REALISTIC, 0.02
    llm = simulated_client(simulator, http, protocol, timeout=1.0)
    env = node_environment(start_to_close=10, heartbeat=2)
    beats: list[object] = []
    env.on_heartbeat = lambda *details: beats.append(details)

    answer = await env.run(json_answer, llm, REVIEW, code=ErrorCode.AGENT_FAILED)

    assert isinstance(answer, Review) and simulator.log[0].request.stream
    generation, every = simulator.log[0].generation_seconds, 2 * HEARTBEAT_SHARE
    assert 1 <= len(beats) <= generation / every + 1, "at most one heartbeat per share of the heartbeat timeout"
    assert len(beats) < simulator.log[0].answer_tokens, "not one per chunk"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_node_heartbeats_while_its_model_reads_the_prompt_and_waits_past_its_heartbeat_timeout(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    """Issue 50 #13, issue 55: heartbeats went out only with chunks, so the first chunk had to come within the
    heartbeat timeout less a second; now the call heartbeats while it waits, and the client's limit decides."""
    simulator.profile = Profile("slow prompt", first_token=2.5, tokens_per_second=400.0)
    llm = simulated_client(simulator, http, protocol, timeout=5.0)
    env = node_environment(start_to_close=10, heartbeat=1)
    beats: list[float] = []
    env.on_heartbeat = lambda *details: beats.append(time.monotonic())
    started = time.monotonic()

    answer = await env.run(json_answer, llm, REVIEW, code=ErrorCode.AGENT_FAILED)

    assert isinstance(answer, Review)
    before_first_token = [beat - started for beat in beats if beat - started < 2.5]
    assert len(before_first_token) >= 8, before_first_token  # every 0.2 s of the 1 s heartbeat timeout


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_streamed_node_gives_up_on_a_silent_model_after_llm_timeout_seconds(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    simulator.quirks = [QuirkRule(Quirk.HANG)]
    llm = simulated_client(simulator, http, protocol, timeout=0.3)
    started = time.monotonic()

    with pytest.raises(ApplicationError) as caught:
        await node_environment(start_to_close=30, heartbeat=5).run(
            json_answer, llm, REVIEW, code=ErrorCode.AGENT_FAILED
        )

    assert caught.value.type == "ProviderTimeoutError" and not caught.value.non_retryable
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_each_node_sends_its_own_output_limit(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    """Issue 25: no limit was sent, so Anthropic's client default (4096) cut every long document."""
    llm = simulated_client(simulator, http, protocol, timeout=5)
    chapter, decision = node_environment(5, activity_type="writing.writer"), node_environment(5, activity_type="x.y")

    await chapter.run(json_answer, llm, REVIEW, code=ErrorCode.AGENT_FAILED)
    await decision.run(model_turn, llm, LLMRequest(messages=REVIEW.messages))
    await node_environment(5, activity_type="app_builder.product_manager").run(
        model_turn, llm, LLMRequest(messages=REVIEW.messages)
    )

    assert [call.request.max_tokens for call in simulator.log] == [8192, 4096, 16384]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_no_node_s_limit_goes_above_what_the_model_accepts(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    llm = simulated_client(simulator, http, protocol, timeout=5, llm_max_output_tokens=6000)

    await node_environment(5, activity_type="writing.writer").run(json_answer, llm, REVIEW, code=ErrorCode.AGENT_FAILED)
    await node_environment(5, activity_type="x.y").run(model_turn, llm, LLMRequest(messages=REVIEW.messages))

    assert [call.request.max_tokens for call in simulator.log] == [6000, 4096]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_truncated_json_answer_is_a_non_retryable_error_naming_the_node_and_limit(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    """No repair round: a repair under the same limit is cut the same way."""
    simulator.quirks = [QuirkRule(Quirk.TRUNCATE)]
    llm = simulated_client(simulator, http, protocol, timeout=5, llm_max_output_tokens=256)

    with pytest.raises(ApplicationError) as caught:
        await node_environment(start_to_close=5).run(json_answer, llm, REVIEW, code=ErrorCode.AGENT_FAILED)

    assert caught.value.non_retryable and caught.value.type == "TruncatedAnswerError"
    assert "reviewer" in caught.value.message and "max_tokens=256" in caught.value.message
    assert [call.finish for call in simulator.log] == ["length"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_streamed_text_reaches_the_caller_without_reasoning(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    """A writing agent's text, as it streams to the run: no `<think>` block, however its tags were split."""
    simulator.quirks = [QuirkRule(Quirk.THINK)]
    llm = simulated_client(simulator, http, protocol, timeout=5)
    written: list[str] = []

    async def on_text(text: str) -> None:
        written.append(text)

    request = LLMRequest(messages=(Message.user("写一段开头"),))
    response = await node_environment(start_to_close=5).run(model_turn, llm, request, on_text=on_text)

    assert simulator.log[0].request.stream and simulator.log[0].text.startswith("<think>")
    assert "".join(written) == response.text and response.text and "think>" not in response.text


def test_a_retryable_provider_error_is_one_log_line_and_a_benign_failure(caplog: pytest.LogCaptureFixture) -> None:
    """The SDK logs a BENIGN failure at debug level, without the warning and its traceback."""
    error = RateLimitError("rate limited", provider="openai", status=429, retry_after=3)

    with caplog.at_level(logging.DEBUG, logger="temporalio.activity"):
        failure = node_environment(start_to_close=5).run(llm_failure, error, node="reviewer")

    assert failure.category == ApplicationErrorCategory.BENIGN and not failure.non_retryable
    [record] = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "429" in record.getMessage() and "reviewer" in record.getMessage()


def test_a_permanent_provider_error_is_left_to_the_sdk_to_report() -> None:
    error = QuotaExhaustedError("quota spent", provider="openai", status=402)

    failure = node_environment(start_to_close=5).run(llm_failure, error)

    assert failure.category == ApplicationErrorCategory.UNSPECIFIED and failure.non_retryable


async def test_a_stream_that_stalls_after_its_first_chunk_is_retried_by_temporal(
    llm: LLMClient, loopback: Loopback
) -> None:
    streamed = chat_stream(["第一段", "第二段"])
    after_first_text = streamed.body.index("第二段".encode()) - 60
    loopback.queue(dataclasses.replace(streamed, stall_after=(after_first_text, 3.0)))
    llm.timeout = 0.3

    with pytest.raises(ApplicationError) as caught:
        await node_environment(start_to_close=10, heartbeat=5).run(
            model_turn, llm, LLMRequest(messages=REVIEW.messages)
        )

    assert caught.value.type == "ProviderTimeoutError" and not caught.value.non_retryable
