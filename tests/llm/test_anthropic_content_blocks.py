"""Anthropic content blocks beyond text and the client's own tool calls: server tools (web search, web fetch, code
execution, tool search) with their streamed inputs and their results, MCP calls, thinking, container uploads, and
block types not invented yet. Only `text` blocks make the answer and only `tool_use` blocks are calls for the client
to run; every other block, and every delta sent to it, is skipped. And the usage of a stream: message_delta's
cumulative counts, which grow past message_start's when server tools make the turn sample the model again."""

import dataclasses
import json
import typing
from typing import Any

import httpx
import pytest
from anthropic.types import ContentBlock
from anthropic.types.beta import BetaContentBlock

from llm import Done, TextDelta, ToolCall, ToolCallDelta, ToolCallEnd, ToolCallStart
from llm.errors import MalformedResponseError
from tests.llm.loopback import Fixture, Loopback
from tests.llm.our_client import client_for, request_for, stream_events
from tests.llm.outcome import expected_outcome


def block_types(union: Any) -> set[str]:
    """The `type` tags of an SDK content-block union, `Annotated[Union[...], discriminator]`."""
    members = typing.get_args(typing.get_args(union)[0])
    return {typing.get_args(member.model_fields["type"].annotation)[0] for member in members}


SKIPPED_BLOCK_TYPES = [
    *sorted((block_types(ContentBlock) | block_types(BetaContentBlock)) - {"text", "tool_use"}),
    "block_type_of_the_future",
]
"""Every response block type the installed `anthropic` SDK knows (GA and beta) but text and tool_use, and one
it does not know yet."""


def anthropic_stream(*events: dict[str, Any]) -> Fixture:
    """A 200 Messages stream carrying `events`, each under its own `event:` name, as the API sends them."""
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events)
    return Fixture(status=200, headers={"content-type": "text/event-stream; charset=utf-8"}, body=body.encode())


def block(index: int, content_block: dict[str, Any], *deltas: dict[str, Any]) -> list[dict[str, Any]]:
    """One content block's events: its start, its deltas, its stop."""
    return [
        {"type": "content_block_start", "index": index, "content_block": content_block},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


MESSAGE_START: dict[str, Any] = {
    "type": "message_start",
    "message": {"id": "msg_test", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": []},
}
MESSAGE_END: list[dict[str, Any]] = [
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 60}},
    {"type": "message_stop"},
]


@pytest.mark.parametrize("stem", ["tools_web_search_stream", "code_execution_stream"])
async def test_server_tool_blocks_leave_the_text_and_the_client_calls_of_a_stream_intact(
    loopback: Loopback, stem: str
) -> None:
    events = await stream_events(loopback, "anthropic", stem)
    final = events[-1]
    assert isinstance(final, Done)
    expected = expected_outcome("anthropic", stem)

    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == final.response.text == expected.text
    call_events = [e for e in events if isinstance(e, ToolCallStart | ToolCallDelta | ToolCallEnd)]
    assert {e.id for e in call_events} == {c.id for c in final.response.tool_calls}  # no srvtoolu_… among them
    assert [(c.id, c.name, c.arguments) for c in final.response.tool_calls] == [
        (c.id, c.name, c.arguments) for c in expected.tool_calls
    ]
    assert final.response.finish_reason == ("tool_use" if expected.tool_calls else "stop")


@pytest.mark.parametrize("block_type", SKIPPED_BLOCK_TYPES)
async def test_every_other_block_type_and_its_deltas_are_skipped(
    loopback: Loopback, http: httpx.AsyncClient, block_type: str
) -> None:
    citation = {"type": "web_search_result_location", "url": "https://example.com", "cited_text": "西湖"}
    loopback.queue(
        anthropic_stream(
            MESSAGE_START,
            *block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "答案在前，"}),
            *block(
                1,
                {"type": block_type, "id": "srvtoolu_test", "name": "web_search", "input": {}},
                {"type": "input_json_delta", "partial_json": '{"query": "西湖"}'},
                {"type": "thinking_delta", "thinking": "想一想"},
                {"type": "signature_delta", "signature": "EqQBCgIYAh"},
                {"type": "delta_type_of_the_future", "value": 1},
            ),
            *block(
                2,
                {"type": "text", "text": "", "citations": []},
                {"type": "citations_delta", "citation": citation},
                {"type": "text_delta", "text": "也在后。"},
            ),
            *block(3, {"type": "tool_use", "id": "toolu_test", "name": "get_time", "input": {}}),
            *MESSAGE_END,
        )
    )
    response = await client_for("anthropic", loopback, http, retry=None).stream(request_for("tools")).response()

    assert response.text == "答案在前，也在后。"
    assert response.tool_calls == (ToolCall(id="toolu_test", name="get_time"),)


async def test_a_delta_for_a_block_that_never_started_is_malformed(loopback: Loopback, http: httpx.AsyncClient) -> None:
    loopback.queue(
        anthropic_stream(
            MESSAGE_START,
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "无头"}},
            *MESSAGE_END,
        )
    )
    with pytest.raises(MalformedResponseError, match="block 0"):
        await client_for("anthropic", loopback, http, retry=None).stream(request_for("text")).response()


async def test_message_delta_usage_overrides_message_start_count_by_count(
    loopback: Loopback, http: httpx.AsyncClient
) -> None:
    """message_start says 25 input tokens, nothing cached. The final message_delta reports the turn's cumulative
    input (412) and cache reads (2048) and leaves the cache writes out: each count it carries wins, the one it
    leaves out keeps message_start's value, as the SDK's accumulator does. Input is all three added up."""
    fixture = Fixture.load("anthropic/text_stream")
    cumulative = b'"usage":{"input_tokens":412,"cache_read_input_tokens":2048,"output_tokens":38}'
    loopback.queue(dataclasses.replace(fixture, body=fixture.body.replace(b'"usage":{"output_tokens":38}', cumulative)))

    response = await client_for("anthropic", loopback, http, retry=None).stream(request_for("text")).response()

    assert (response.usage.input_tokens, response.usage.output_tokens) == (412 + 0 + 2048, 38)
    assert response.usage.total_tokens == 412 + 2048 + 38
