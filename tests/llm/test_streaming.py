"""The normalized stream: events per protocol (text, parallel tool calls and their argument fragments, ends),
the final `done`, and the protocol quirks: Chat Completions keys calls by index and ends on `[DONE]`,
Responses keys fragments by item id but reports call ids, Gemini sends whole calls with a thought signature
that must go back on the next turn, Anthropic's pings produce nothing."""

import json
from collections import defaultdict

import httpx
import pytest

from llm import Done, LLMResponse, Message, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallStart
from llm.types import ToolResultPart
from tests.llm.loopback import Fixture, Loopback
from tests.llm.our_client import PROTOCOLS, client_for, request_for, stream_events


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_text_deltas_add_up_to_the_final_text_and_done_comes_last_once(loopback: Loopback, protocol: str) -> None:
    events = await stream_events(loopback, protocol, "text_stream")

    assert isinstance(events[-1], Done) and sum(isinstance(e, Done) for e in events) == 1
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1 and "".join(deltas) == events[-1].response.text
    assert events[-1].response.usage.total_tokens > 0


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_parallel_tool_calls_stream_as_start_fragments_end(loopback: Loopback, protocol: str) -> None:
    events = await stream_events(loopback, protocol, "tools_stream")
    final = events[-1]
    assert isinstance(final, Done)

    starts = [e for e in events if isinstance(e, ToolCallStart)]
    ends = [e.id for e in events if isinstance(e, ToolCallEnd)]
    fragments: dict[str, str] = defaultdict(str)
    for event in events:
        if isinstance(event, ToolCallDelta):
            fragments[event.id] += event.arguments_delta
    assert [(s.id, s.name) for s in starts] == [(c.id, c.name) for c in final.response.tool_calls]
    assert sorted(ends) == sorted(s.id for s in starts)
    for call in final.response.tool_calls:
        assert json.loads(fragments[call.id] or "{}") == call.arguments
        position = {id(e): i for i, e in enumerate(events)}
        start = next(s for s in starts if s.id == call.id)
        end = next(e for e in events if isinstance(e, ToolCallEnd) and e.id == call.id)
        assert position[id(start)] < position[id(end)] < len(events) - 1
    weather, time = final.response.tool_calls
    assert weather.arguments == {"city": "杭州", "unit": "celsius"}
    assert time.name == "get_time" and time.arguments == {}
    assert final.response.finish_reason == "tool_use"


async def test_chat_completions_accumulates_interleaved_fragments_by_index(loopback: Loopback) -> None:
    """The fixture interleaves index 0 and 1; fragments after the first carry only the index, never the id."""
    events = await stream_events(loopback, "openai_chat", "tools_stream")
    order = [e.id for e in events if isinstance(e, ToolCallDelta | ToolCallStart)]
    first, second = order[0], next(i for i in order if i != order[0])
    last_of_first = len(order) - 1 - order[::-1].index(first)
    assert last_of_first > order.index(second)  # the fixture really interleaves the two calls
    assert [e.id for e in events if isinstance(e, ToolCallEnd)] == [first, second]


async def test_chat_completions_ignores_anything_after_done(loopback: Loopback) -> None:
    fixture = Fixture.load("openai_chat/text_stream")
    loopback.queue(Fixture(fixture.status, fixture.headers, fixture.body + b'data: {"not": "read"\n\n'))
    async with httpx.AsyncClient() as http:
        response = await client_for("openai_chat", loopback, http, retry=None).stream(request_for("text")).response()
    assert response.text and response.usage.total_tokens > 0


async def test_responses_reports_call_ids_while_fragments_are_keyed_by_item_id(loopback: Loopback) -> None:
    raw = Fixture.load("openai_responses/tools_stream").body.decode()
    events = await stream_events(loopback, "openai_responses", "tools_stream")

    ids = {e.id for e in events if isinstance(e, ToolCallStart | ToolCallDelta | ToolCallEnd)}
    assert ids and all(i.startswith("call_") for i in ids)
    assert '"item_id":"fc_' in raw.replace(" ", "")  # the wire keys fragments by the item id


async def test_anthropic_pings_produce_no_events(loopback: Loopback) -> None:
    raw = Fixture.load("anthropic/text_stream").body.decode()
    events = await stream_events(loopback, "anthropic", "text_stream")
    assert "event: ping" in raw
    assert len(events) == raw.count('"type": "text_delta"') + raw.count('"type":"text_delta"') + 1


async def test_gemini_thought_signature_goes_back_with_the_call_on_the_next_turn(loopback: Loopback) -> None:
    events = await stream_events(loopback, "gemini", "tools_stream")
    final = events[-1]
    assert isinstance(final, Done)
    weather = final.response.tool_calls[0]
    assert weather.signature

    loopback.queue("gemini/text")
    results = [ToolResultPart(call_id=c.id, name=c.name, content="晴，18°C") for c in final.response.tool_calls]
    follow_up = request_for("tools").model_copy(
        update={
            "messages": (*request_for("tools").messages, final.response.as_message(), Message.tool_results(results))
        }
    )
    async with httpx.AsyncClient() as http:
        answer: LLMResponse = await client_for("gemini", loopback, http, retry=None).complete(follow_up)
    assert answer.text

    sent = loopback.requests[-1].json()["contents"]
    model_turn, tool_turn = sent[-2], sent[-1]
    assert model_turn["role"] == "model"
    text, weather_call, time_call = model_turn["parts"]
    assert text == {"text": final.response.text}
    assert weather_call == {
        "functionCall": {"name": "get_weather", "args": {"city": "杭州", "unit": "celsius"}},
        "thoughtSignature": weather.signature,
    }
    assert "thoughtSignature" not in time_call
    assert tool_turn["role"] == "user"
    assert tool_turn["parts"][0] == {"functionResponse": {"name": "get_weather", "response": {"result": "晴，18°C"}}}
