"""The simulator through this project's own `LLMClient` (built as runtime/llm_client.py builds it) and raw httpx:
both protocols, whole and streamed, answers valid for the schema or tool that was sent, timing that follows the
profile, determinism by seed, and the request log. Quirks are in test_quirks.py."""

import json
import random
import time
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from llm import LLMRequest, Message, TextDelta, ToolCall
from llm.errors import ToolRoundsExceededError
from llm.json_output import json_instructions, parse_model
from llm.tools import run_tool_calls
from tests.simulator.answers import AnswerStyle
from tests.simulator.clients import PROTOCOLS, client_for, json_request
from tests.simulator.examples import WEATHER, Inventory, Review, WeatherArguments
from tests.simulator.instances import instance
from tests.simulator.profiles import REALISTIC
from tests.simulator.requests import Protocol, SimRequest, Tool
from tests.simulator.server import Simulator
from tests.simulator.text import CJK


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_json_answer_is_a_valid_instance_of_the_schema_sent(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    client = client_for(simulator, protocol, http)

    review = await client.chat_with_json([Message.user("请评审第三章的节奏和人物")], Review)

    assert isinstance(review, Review) and len(simulator.log) == 1
    logged = simulator.log[0]
    assert logged.request.schema == Review.model_json_schema()
    assert logged.request.schema_source == ("response_format" if protocol == "openai_chat" else "prompt")
    assert CJK.search(review.title) and CJK.search(review.sections[0].content)
    assert 2 <= len(review.sections) <= 4 and len(review.sections[0].content) >= 100  # a realistic size


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_streamed_json_answer_is_valid_too(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    client = client_for(simulator, protocol, http)

    response = await client.stream(json_request(Review, "Review chapter three, please", client)).response()

    review = parse_model(Review, response.text)
    assert not CJK.search(response.text), "an English prompt gets an English answer"
    assert simulator.log[0].request.stream and response.usage.output_tokens == simulator.log[0].answer_tokens
    assert review.score <= 1 and response.finish_reason == "stop"


async def test_a_compatible_server_in_json_object_mode_gets_the_schema_from_the_prompt(
    simulator: Simulator, http: httpx.AsyncClient
) -> None:
    client = client_for(
        simulator,
        "openai_chat",
        http,
        llm_provider="openai-compatible",
        llm_api_key="test-key",
        llm_model="Qwen/Qwen3-8B",
    )

    inventory = await client.chat_with_json([Message.user("盘点一下仓库")], Inventory)

    assert inventory.kind == "inventory" and inventory.counts
    logged = simulator.log[0]
    assert logged.request.schema_source == "prompt" and logged.request.json_object
    assert logged.body["response_format"] == {"type": "json_object"} and logged.request.model == "Qwen/Qwen3-8B"


@pytest.mark.parametrize("model", [Review, Inventory, WeatherArguments])
def test_instances_are_valid_for_every_seed(model: type[BaseModel]) -> None:
    schema = model.model_json_schema()
    for seed in range(40):
        for language in ("zh", "en"):
            model.model_validate(instance(schema, random.Random(seed), language))


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("stream", [False, True])
async def test_offered_tools_are_called_first_then_the_model_answers_in_text(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, stream: bool
) -> None:
    client = client_for(simulator, protocol, http)
    request = LLMRequest(messages=(Message.user("明天杭州天气怎么样？用 get_weather 查一下"),), tools=(WEATHER,))
    calls: list[ToolCall] = []

    async def run(call: ToolCall) -> str:
        calls.append(call)
        return "晴，25°C"

    if stream:
        first = await client.stream(request).response()
        assert first.finish_reason == "tool_use"
        calls.extend(first.tool_calls)
        result = await run_tool_calls(first.tool_calls, run)
        messages = (*request.messages, first.as_message(), result)
        final = await client.stream(request.model_copy(update={"messages": messages})).response()
    else:
        final = await client.complete_with_tools(request, run)

    assert len(calls) >= 1 and calls[0].name == "get_weather"
    WeatherArguments.model_validate(calls[0].arguments)
    assert final.text and not final.tool_calls and CJK.search(final.text)
    assert [entry.kind for entry in simulator.log] == ["tool_call", "prose"]
    assert simulator.log[1].request.has_tool_result


async def test_the_tool_policy_is_configurable(simulator: Simulator, http: httpx.AsyncClient) -> None:
    client = client_for(simulator, "openai_chat", http)
    request = LLMRequest(messages=(Message.user("Weather in Oslo?"),), tools=(WEATHER,))

    async def run(call: ToolCall) -> str:
        return "rain"

    simulator.style = AnswerStyle(tool_policy="never")
    assert not (await client.complete(request)).tool_calls
    simulator.style = AnswerStyle(tool_policy="always")
    with pytest.raises(ToolRoundsExceededError):
        await client.complete_with_tools(request, run, max_rounds=3)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_tool_author_writes_the_calls_it_has_words_for(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    client = client_for(simulator, protocol, http)

    def author(request: SimRequest, tool: Tool) -> list[dict[str, Any]] | None:
        if tool.name != "get_weather" or "Oslo" not in request.last_user_text:
            return None
        return [{"city": "Oslo", "unit": "celsius", "days": day} for day in (1, 2)]

    simulator.style = AnswerStyle(tool_author=author)
    oslo = await client.complete(LLMRequest(messages=(Message.user("Weather in Oslo?"),), tools=(WEATHER,)))
    bergen = await client.complete(LLMRequest(messages=(Message.user("Weather in Bergen?"),), tools=(WEATHER,)))

    assert [call.arguments for call in oslo.tool_calls] == [
        {"city": "Oslo", "unit": "celsius", "days": 1},
        {"city": "Oslo", "unit": "celsius", "days": 2},
    ]
    assert len(bergen.tool_calls) == 1 and bergen.tool_calls[0].arguments["city"] != "Oslo"
    WeatherArguments.model_validate(bergen.tool_calls[0].arguments)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_json_author_writes_the_answers_it_has_words_for(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    client = client_for(simulator, protocol, http)

    def author(request: SimRequest) -> Any:
        return {"city": "Oslo", "unit": "celsius", "days": 3} if "Oslo" in request.last_user_text else None

    simulator.style = AnswerStyle(json_author=author)
    schema = WeatherArguments.model_json_schema()
    asked = [Message.user(f"Weather in {city}? {json_instructions(schema)}") for city in ("Oslo", "Bergen")]
    oslo, bergen = [await client.complete(LLMRequest(messages=(message,))) for message in asked]

    assert json.loads(oslo.text) == {"city": "Oslo", "unit": "celsius", "days": 3}
    assert WeatherArguments.model_validate_json(bergen.text).city != "Oslo"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_prose_has_the_target_length_and_max_tokens_cuts_it(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    client = client_for(simulator, protocol, http)
    simulator.style = AnswerStyle(prose_tokens=300)
    request = LLMRequest(messages=(Message.user("写一段关于小镇的描写"),))

    whole = await client.complete(request)
    cut = await client.complete(request.model_copy(update={"max_output_tokens": 40}))

    assert 300 <= whole.usage.output_tokens < 340 and whole.finish_reason == "stop"
    assert cut.usage.output_tokens == 40 and cut.finish_reason == "max_tokens"
    assert whole.text.startswith(cut.text) and len(cut.text) == 40
    assert [entry.request.max_tokens for entry in simulator.log] == [None if protocol == "openai_chat" else 4096, 40]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_same_request_and_seed_give_the_same_answer_streamed_or_not(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    client = client_for(simulator, protocol, http)
    request = json_request(Review, "请评审第一章", client)

    first = await client.complete(request)
    again = await client.complete(request)
    streamed = await client.stream(request).response()
    simulator.seed = 7
    other = await client.complete(request)

    assert first.text == again.text == streamed.text and first.response_id == again.response_id
    assert other.text != first.text


async def test_streaming_follows_the_profile_at_a_time_scale(simulator: Simulator, http: httpx.AsyncClient) -> None:
    """Realistic (1.5 s to the first token, 40 tokens/s) at 1/50: a 2 000-token answer takes about 1.03 s."""
    client = client_for(simulator, "openai_chat", http)
    simulator.profile, simulator.time_scale = REALISTIC, 0.02
    simulator.style = AnswerStyle(prose_tokens=2000)
    request = LLMRequest(messages=(Message.user("写一章小说"),))

    started = time.monotonic()
    arrivals: list[float] = []
    async with client.stream(request) as stream:
        async for event in stream:
            if isinstance(event, TextDelta):
                arrivals.append(time.monotonic() - started)
    whole_started = time.monotonic()
    await client.complete(request)
    whole = time.monotonic() - whole_started

    expected = simulator.log[0].generation_seconds
    assert 1.0 <= expected <= 1.1 and len(arrivals) == simulator.log[0].answer_tokens
    assert 0.025 <= arrivals[0] < 0.5, "the first token comes after the scaled 1.5 s, not with the headers"
    assert 0.8 * expected <= arrivals[-1] <= expected + 2.0
    assert arrivals[len(arrivals) // 2] < 0.8 * arrivals[-1], "tokens arrive spread out, not all at the end"
    assert 0.8 * expected <= whole <= expected + 2.0, "a whole answer arrives after the whole generation time"


async def test_raw_wire_formats(simulator: Simulator, http: httpx.AsyncClient) -> None:
    """What goes over the wire, read with plain httpx: SSE framing, the usage chunk, `[DONE]`, Anthropic's named
    events, `max_tokens`/`max_completion_tokens` both honoured."""
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
    body = (await http.post(f"{simulator.base_url}/v1/chat/completions", json=chat)).json()
    assert body["object"] == "chat.completion" and body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] == 5

    chat |= {"stream": True, "stream_options": {"include_usage": True}, "max_completion_tokens": 3}
    del chat["max_tokens"]
    text = (await http.post(f"{simulator.base_url}/v1/chat/completions", json=chat)).text
    frames = [frame.removeprefix("data: ") for frame in text.strip().split("\n\n")]
    assert frames[-1] == "[DONE]" and json.loads(frames[-2])["usage"]["completion_tokens"] == 3
    assert json.loads(frames[-3])["choices"][0]["finish_reason"] == "length"

    messages = {"model": "claude", "max_tokens": 64, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    text = (await http.post(f"{simulator.base_url}/v1/messages", json=messages)).text
    names = [frame.split("\n")[0].removeprefix("event: ") for frame in text.strip().split("\n\n")]
    assert names[:3] == ["message_start", "ping", "content_block_start"] and names[-2:] == [
        "message_delta",
        "message_stop",
    ]
    assert (await http.post(f"{simulator.base_url}/v1/nothing", json={})).status_code == 404
    assert (await http.post(f"{simulator.base_url}/v1/messages", content=b"{")).status_code == 400


async def test_the_log_records_every_request(simulator: Simulator, http: httpx.AsyncClient) -> None:
    client = client_for(simulator, "anthropic", http)
    await client.complete(
        LLMRequest(messages=(Message.user("查天气"),), system="你是助手", tools=(WEATHER,), max_output_tokens=500)
    )

    [logged] = simulator.log
    assert (logged.number, logged.protocol, logged.request.model) == (1, "anthropic", "claude-sonnet-4-5")
    assert logged.request.messages == (("user", "查天气"),) and logged.request.system == "你是助手"
    assert [t.name for t in logged.request.tools] == ["get_weather"] and logged.request.max_tokens == 500
    assert not logged.request.stream and logged.quirk is None and logged.status == 200
    assert logged.kind == "tool_call" and logged.tool_calls[0][0] == "get_weather" and logged.finish == "tool_calls"
    assert logged.answer_chars > 0 and logged.answer_tokens > 0 and logged.generation_seconds == 0
