"""The client's higher-level calls over the wire: the tool loop (results sent back in each protocol's form),
`chat_with_json` (the provider's JSON mode or instructions, one repair round), and the RetryEngine around calls."""

from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from llm import LLMClient, Message, RetryConfig, RetryEngine, ToolCall, ToolError
from llm.errors import OutputValidationError, ToolRoundsExceededError
from llm.providers import configure_provider
from tests.llm.answers import text_answer
from tests.llm.loopback import Loopback
from tests.llm.our_client import PROTOCOLS, client_for, request_for
from tests.llm.outcome import expected_outcome


class Weather(BaseModel):
    """The schema `chat_with_json` is asked to fill."""

    city: str
    temperature: float


def tool_results_sent(protocol: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """(call id or tool name, result) pairs of the tool results in a request body, read the protocol's way."""
    if protocol == "anthropic":
        blocks = body["messages"][-1]["content"]
        return [(b["tool_use_id"], b["content"]) for b in blocks if b["type"] == "tool_result"]
    if protocol == "openai_chat":
        return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]
    if protocol == "openai_responses":
        return [(i["call_id"], i["output"]) for i in body["input"] if i.get("type") == "function_call_output"]
    parts = body["contents"][-1]["parts"]
    return [(p["functionResponse"]["name"], p["functionResponse"]["response"]["result"]) for p in parts]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_tool_loop_runs_the_calls_and_sends_results_back(
    loopback: Loopback, http: httpx.AsyncClient, protocol: str
) -> None:
    loopback.queue(f"{protocol}/tools", f"{protocol}/text")
    calls: list[ToolCall] = []

    async def execute(call: ToolCall) -> str:
        calls.append(call)
        return "晴，18°C" if call.name == "get_weather" else "14:05"

    client = client_for(protocol, loopback, http, retry=None)
    answer = await client.complete_with_tools(request_for("tools"), execute)

    assert [c.name for c in calls] == ["get_weather", "get_time"]
    assert calls[0].arguments == {"city": "杭州", "unit": "celsius"} and calls[1].arguments == {}
    sent = tool_results_sent(protocol, loopback.requests[1].json())
    keys = [c.name for c in calls] if protocol == "gemini" else [c.id for c in calls]
    assert sent == list(zip(keys, ["晴，18°C", "14:05"], strict=True))
    assert answer.text and not answer.tool_calls
    rounds = (expected_outcome(protocol, "tools"), expected_outcome(protocol, "text"))
    assert answer.usage.total_tokens == sum(r.total_tokens for r in rounds)


async def test_a_tool_error_goes_back_to_the_model_as_an_error_result(
    loopback: Loopback, http: httpx.AsyncClient
) -> None:
    loopback.queue("anthropic/tools", "anthropic/text")

    async def execute(call: ToolCall) -> str:
        raise ToolError(f"{call.name} is down")

    await client_for("anthropic", loopback, http, retry=None).complete_with_tools(request_for("tools"), execute)
    blocks = loopback.requests[1].json()["messages"][-1]["content"]
    assert [(b["content"], b["is_error"]) for b in blocks] == [
        ("get_weather is down", True),
        ("get_time is down", True),
    ]


async def test_the_tool_loop_stops_after_max_rounds(loopback: Loopback, http: httpx.AsyncClient) -> None:
    loopback.queue("openai_chat/tools", "openai_chat/tools")

    async def execute(call: ToolCall) -> str:
        return "ok"

    with pytest.raises(ToolRoundsExceededError, match="2 rounds"):
        await client_for("openai_chat", loopback, http, retry=None).complete_with_tools(
            request_for("tools"), execute, max_rounds=2
        )


def json_mode_of(protocol: str, body: dict[str, Any]) -> Any:
    if protocol == "openai_chat":
        return body.get("response_format", {}).get("type")
    if protocol == "openai_responses":
        return body.get("text", {}).get("format", {}).get("type")
    if protocol == "gemini":
        return body.get("generationConfig", {}).get("responseMimeType")
    return None


@pytest.mark.parametrize(
    ("protocol", "mode", "instructed"),
    [
        ("openai_chat", "json_schema", False),
        ("openai_responses", "json_schema", False),
        ("gemini", "application/json", False),
        ("anthropic", None, True),  # no JSON mode: the schema goes into the system prompt
    ],
)
async def test_chat_with_json_uses_the_providers_json_mode_or_instructions(
    loopback: Loopback, http: httpx.AsyncClient, protocol: str, mode: str | None, instructed: bool
) -> None:
    loopback.queue(text_answer(protocol, '```json\n{"city": "杭州", "temperature": 18.5}\n```'))
    client = client_for(protocol, loopback, http, retry=None)
    weather = await client.chat_with_json([Message.user("杭州天气")], Weather, system="你是天气助手")

    assert weather == Weather(city="杭州", temperature=18.5)
    body = loopback.requests[0].json()
    assert json_mode_of(protocol, body) == mode
    system = str(body.get("system") or body.get("instructions") or body.get("systemInstruction") or body["messages"][0])
    assert "你是天气助手" in system
    assert ('"temperature"' in system) is instructed


async def test_deepseek_gets_json_object_mode_plus_the_schema_in_instructions(
    loopback: Loopback, http: httpx.AsyncClient
) -> None:
    provider = configure_provider("deepseek", api_key="sk-test", base_url=loopback.base_url)
    loopback.queue(text_answer("openai_chat", '{"city": "杭州", "temperature": 18}'))
    await LLMClient(provider, http, retry=None).chat_with_json([Message.user("杭州天气")], Weather)

    request = loopback.requests[0]
    body = request.json()
    assert request.path == "/chat/completions" and request.headers["authorization"] == "Bearer sk-test"
    assert body["model"] == "deepseek-chat" and body["response_format"] == {"type": "json_object"}
    assert "JSON" in body["messages"][0]["content"] and '"temperature"' in body["messages"][0]["content"]


async def test_chat_with_json_repairs_once_then_gives_up(loopback: Loopback, http: httpx.AsyncClient) -> None:
    client = client_for("openai_chat", loopback, http, retry=None)
    loopback.queue(
        text_answer("openai_chat", '{"city": "杭州"}'),
        text_answer("openai_chat", '{"city": "杭州", "temperature": 18}'),
    )
    assert await client.chat_with_json([Message.user("杭州天气")], Weather) == Weather(city="杭州", temperature=18)
    repair = loopback.requests[1].json()["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"city": "杭州"}'}
    assert "temperature" in repair[-1]["content"] and "not valid" in repair[-1]["content"]

    loopback.reset()
    loopback.queue(text_answer("openai_chat", "晴天"), text_answer("openai_chat", "还是晴天"))
    with pytest.raises(OutputValidationError) as raised:
        await client.chat_with_json([Message.user("杭州天气")], Weather)
    assert raised.value.body == "还是晴天" and raised.value.errors and not raised.value.retryable
    assert len(loopback.requests) == 2


async def test_the_retry_engine_waits_as_the_provider_asks_then_succeeds(
    loopback: Loopback, http: httpx.AsyncClient
) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    engine = RetryEngine(RetryConfig(max_retries=3, base_delay=2.0), sleep=sleep, jitter=lambda limit: 0.0)
    loopback.queue("anthropic/rate_limited", "anthropic/overloaded", "anthropic/text")
    answer = await client_for("anthropic", loopback, http, retry=engine).complete(request_for("text"))

    assert answer.text and len(loopback.requests) == 3
    assert slept == [7.0, 4.0]  # Retry-After of the 429, then backoff for the 529 (2 s × 2¹)


async def test_a_stream_is_retried_before_its_first_event_but_never_after(
    loopback: Loopback, http: httpx.AsyncClient
) -> None:
    async def sleep(seconds: float) -> None:
        pass

    client = client_for("anthropic", loopback, http, retry=RetryEngine(sleep=sleep))
    loopback.queue("anthropic/overloaded", "anthropic/text_stream")
    assert (await client.stream(request_for("text_stream")).response()).text
    assert len(loopback.requests) == 2

    loopback.reset()
    loopback.queue("anthropic/error_midstream")
    with pytest.raises(Exception, match="Overloaded"):
        await client.stream(request_for("text_stream")).response()
    assert len(loopback.requests) == 1


async def test_a_non_retryable_error_is_not_retried_by_the_engine(loopback: Loopback, http: httpx.AsyncClient) -> None:
    async def sleep(seconds: float) -> None:
        raise AssertionError("no retry expected")

    loopback.queue("openai_chat/quota_exhausted")
    with pytest.raises(Exception, match="quota"):
        await client_for("openai_chat", loopback, http, retry=RetryEngine(sleep=sleep)).complete(request_for("text"))
    assert len(loopback.requests) == 1
