"""Every quirk mode, in both protocols, through this project's `LLMClient` and raw httpx: what the simulator sends
and what the client makes of it: the JSON read wherever the answer put it, reasoning kept out of the text, a
truncated answer or tool call recognised as such, transport failures as typed errors."""

import json

import httpx
import pytest

from llm import LLMRequest, Message, TextDelta
from llm.errors import (
    LLMError,
    ProviderConnectionError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
)
from tests.simulator.clients import PROTOCOLS, client_for, json_request
from tests.simulator.examples import WEATHER, Review
from tests.simulator.quirks import Quirk, QuirkRule, scheduled
from tests.simulator.requests import Protocol
from tests.simulator.server import Simulator


def test_a_schedule_picks_requests_by_period_count_or_seeded_chance() -> None:
    rules = [QuirkRule(Quirk.RATE_LIMIT, first=1), QuirkRule(Quirk.FENCE, every=3)]
    assert [scheduled(rules, n, seed=0) for n in range(1, 7)] == [
        Quirk.RATE_LIMIT,
        None,
        Quirk.FENCE,
        None,
        None,
        Quirk.FENCE,
    ]
    chance = [QuirkRule(Quirk.SERVER_ERROR, probability=0.3)]
    picks = [scheduled(chance, n, seed=5) for n in range(1, 201)]
    assert picks == [scheduled(chance, n, seed=5) for n in range(1, 201)]
    assert 30 <= picks.count(Quirk.SERVER_ERROR) <= 90
    assert picks != [scheduled(chance, n, seed=6) for n in range(1, 201)]


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("quirk", [Quirk.FENCE, Quirk.PROSE, Quirk.REASONING])
async def test_quirks_the_client_reads_in_one_request(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, quirk: Quirk
) -> None:
    simulator.quirks = [QuirkRule(quirk)]
    review = await client_for(simulator, protocol, http).chat_with_json([Message.user("请评审第二章")], Review)

    assert isinstance(review, Review)
    assert [entry.quirk for entry in simulator.log] == [quirk]


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("quirk", [Quirk.MISSING_FIELD, Quirk.WRONG_SCALE])
async def test_an_invalid_answer_gets_one_repair_round(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, quirk: Quirk
) -> None:
    simulator.quirks = [QuirkRule(quirk, first=1)]
    review = await client_for(simulator, protocol, http).chat_with_json([Message.user("请评审第二章")], Review)

    assert 0 <= review.score <= 1
    assert [entry.quirk for entry in simulator.log] == [quirk, None]
    first = json.loads(simulator.log[0].text)
    if quirk == Quirk.WRONG_SCALE:
        assert first["score"] > 1
    else:
        assert set(Review.model_json_schema()["required"]) - set(first)
    assert "not valid" in simulator.log[1].request.last_user_text


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("quirk", [Quirk.PROSE_BRACES, Quirk.THINK, Quirk.TRAILING_COMMA])
async def test_recoverable_json_is_read_in_one_request(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, quirk: Quirk
) -> None:
    """The JSON is whole in these answers: found behind prose and notes with braces, `<think>` blocks with
    braces, and trailing commas, without a repair round (issue 25: each cost one before)."""
    simulator.quirks = [QuirkRule(quirk, first=1)]
    await client_for(simulator, protocol, http).chat_with_json([Message.user("请评审第二章")], Review)

    assert len(simulator.log) == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("stream", [False, True])
async def test_reasoning_sent_apart_never_reaches_the_text(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, stream: bool
) -> None:
    simulator.quirks = [QuirkRule(Quirk.REASONING)]
    client = client_for(simulator, protocol, http)
    request = LLMRequest(messages=(Message.user("写一段开头"),))

    answer = await (client.stream(request).response() if stream else client.complete(request))

    assert answer.text == simulator.log[0].text and simulator.log[0].quirk == Quirk.REASONING
    assert answer.usage.output_tokens > len(answer.text), "the reasoning tokens are counted all the same"


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("stream", [False, True])
async def test_think_blocks_never_reach_the_text(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, stream: bool
) -> None:
    simulator.quirks = [QuirkRule(Quirk.THINK)]
    client = client_for(simulator, protocol, http)
    request = LLMRequest(messages=(Message.user("写一段开头"),))
    deltas: list[str] = []

    if stream:
        async with client.stream(request) as events:
            deltas = [event.text async for event in events if isinstance(event, TextDelta)]
            answer = await events.response()
    else:
        answer = await client.complete(request)

    sent = simulator.log[0].text
    assert sent.startswith("<think>") and answer.text == sent.split("</think>", 1)[1].lstrip()
    assert not stream or "".join(deltas) == answer.text, "no streamed delta carries the reasoning"


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("stream", [False, True])
async def test_truncation_ends_with_the_length_reason(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, stream: bool
) -> None:
    simulator.quirks = [QuirkRule(Quirk.TRUNCATE)]
    client = client_for(simulator, protocol, http)
    request = json_request(Review, "请评审第二章", client)

    response = await (client.stream(request).response() if stream else client.complete(request))

    assert response.finish_reason == "max_tokens" and simulator.log[0].finish == "length"
    assert response.text == simulator.log[0].text and response.usage.output_tokens == simulator.log[0].answer_tokens
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.text)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_tool_call_cut_at_max_tokens_says_its_arguments_are_unreadable(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    """The turn is not a failure: the call carries why its arguments cannot be read, for the model to be told."""
    simulator.quirks = [QuirkRule(Quirk.TRUNCATE)]
    request = LLMRequest(messages=(Message.user("查一下杭州的天气"),), tools=(WEATHER,))

    response = await client_for(simulator, protocol, http).stream(request).response()

    [(name, arguments)] = simulator.log[0].tool_calls
    assert name == "get_weather" and isinstance(arguments, str) and simulator.log[0].finish == "length"
    [call] = response.tool_calls
    assert response.finish_reason == "max_tokens" and call.name == "get_weather" and call.arguments == {}
    assert call.arguments_error is not None and "output limit" in call.arguments_error


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_rate_limit_says_when_to_retry_and_a_500_is_retryable(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol
) -> None:
    simulator.quirks = [QuirkRule(Quirk.RATE_LIMIT, first=1), QuirkRule(Quirk.SERVER_ERROR, first=2)]
    simulator.retry_after = 3
    client = client_for(simulator, protocol, http)
    request = LLMRequest(messages=(Message.user("你好"),))

    with pytest.raises(RateLimitError) as limited:
        await client.complete(request)
    with pytest.raises(ServerError) as failed:
        await client.stream(request).response()
    answered = await client.complete(request)

    assert limited.value.retry_after == 3 and limited.value.status == 429 and failed.value.retryable
    assert answered.text and [e.status for e in simulator.log] == [429, 500, 200]
    assert [e.quirk for e in simulator.log] == [Quirk.RATE_LIMIT, Quirk.SERVER_ERROR, None]


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("stream", [False, True])
async def test_a_hang_lasts_until_the_client_gives_up(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, stream: bool
) -> None:
    simulator.quirks = [QuirkRule(Quirk.HANG, first=1)]
    client = client_for(simulator, protocol, http)
    request = LLMRequest(messages=(Message.user("你好"),))

    with pytest.raises(ProviderTimeoutError):
        await (client.stream(request, timeout=0.3).response() if stream else client.complete(request, timeout=0.3))
    answered = await client.complete(request)

    assert answered.text and [e.quirk for e in simulator.log] == [Quirk.HANG, None]


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("stream", [False, True])
async def test_a_cut_connection_is_a_retryable_error(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, stream: bool
) -> None:
    simulator.quirks = [QuirkRule(Quirk.CUT_STREAM)]
    client = client_for(simulator, protocol, http)
    request = LLMRequest(messages=(Message.user("写一段开头"),))
    received: list[str] = []

    with pytest.raises(ProviderConnectionError) as cut:
        if stream:
            async with client.stream(request) as events:
                async for event in events:
                    received.append(type(event).__name__)
        else:
            await client.complete(request)

    assert cut.value.retryable and simulator.log[0].quirk == Quirk.CUT_STREAM
    assert not stream or "TextDelta" in received, "the stream is cut after some text arrived"


async def test_raw_quirks_on_the_wire(simulator: Simulator, http: httpx.AsyncClient) -> None:
    """What each quirk looks like to a client that is not this project's: headers, bodies and SSE fields."""
    simulator.quirks = [
        QuirkRule(Quirk.RATE_LIMIT, first=1),
        QuirkRule(Quirk.REASONING, first=2),
        QuirkRule(Quirk.REASONING, first=3),
        QuirkRule(Quirk.FENCE),
    ]
    chat = {"model": "deepseek-reasoner", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    chat_url, messages_url = f"{simulator.base_url}/v1/chat/completions", f"{simulator.base_url}/v1/messages"

    limited = await http.post(chat_url, json=chat)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "1"
    assert limited.json()["error"]["code"] == "rate_limit_exceeded"

    frames = [
        json.loads(f.removeprefix("data: ")) for f in (await http.post(chat_url, json=chat)).text.split("\n\n")[1:-2]
    ]
    reasoning = [f["choices"][0]["delta"].get("reasoning_content") for f in frames if f["choices"]]
    assert reasoning[0] and "{" in "".join(r for r in reasoning if r)

    anthropic = {"model": "claude", "max_tokens": 500, "messages": [{"role": "user", "content": "hi"}]}
    blocks = (await http.post(messages_url, json=anthropic)).json()["content"]
    assert [b["type"] for b in blocks] == ["thinking", "text"] and blocks[0]["signature"]

    schema = {"type": "json_schema", "json_schema": {"name": "Review", "schema": Review.model_json_schema()}}
    fenced = await http.post(chat_url, json={**chat, "stream": False, "response_format": schema})
    content = fenced.json()["choices"][0]["message"]["content"]
    assert content.startswith("```json\n") and content.endswith("\n```")
    Review.model_validate_json(content.removeprefix("```json\n").removesuffix("\n```"))


@pytest.mark.parametrize("quirk", [Quirk.MISSING_FIELD, Quirk.WRONG_SCALE, Quirk.TRAILING_COMMA, Quirk.FENCE])
async def test_json_quirks_do_not_apply_to_prose(simulator: Simulator, http: httpx.AsyncClient, quirk: Quirk) -> None:
    simulator.quirks = [QuirkRule(quirk)]
    answer = await client_for(simulator, "openai_chat", http).complete(LLMRequest(messages=(Message.user("hi"),)))

    assert answer.text and simulator.log[0].quirk is None and simulator.log[0].kind == "prose"


async def test_every_error_the_simulator_sends_is_an_llm_error(simulator: Simulator, http: httpx.AsyncClient) -> None:
    transport = [Quirk.RATE_LIMIT, Quirk.SERVER_ERROR, Quirk.CUT_STREAM]
    simulator.quirks = [QuirkRule(quirk, first=n) for n, quirk in enumerate(transport, start=1)]
    client = client_for(simulator, "anthropic", http)
    for _ in transport:
        with pytest.raises(LLMError):
            await client.stream(LLMRequest(messages=(Message.user("hi"),))).response()


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("quirk", [Quirk.REASONING, Quirk.THINK])
async def test_reasoning_streams_as_thinking_events_without_its_text(
    simulator: Simulator, http: httpx.AsyncClient, protocol: Protocol, quirk: Quirk
) -> None:
    """A model that reasons for a minute still shows it is at work (the activity heartbeats on every event)."""
    simulator.quirks = [QuirkRule(quirk)]
    client = client_for(simulator, protocol, http)

    async with client.stream(LLMRequest(messages=(Message.user("写一段开头"),))) as stream:
        events = [event async for event in stream]

    kinds = [event.type for event in events]
    assert kinds[0] == "thinking" and kinds.count("thinking") > 1 and "text_delta" in kinds
    assert kinds.index("text_delta") > max(i for i, kind in enumerate(kinds) if kind == "thinking")
