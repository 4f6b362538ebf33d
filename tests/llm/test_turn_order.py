"""Conversations as each protocol requires them: Anthropic and Gemini refuse two turns of one role in a row, so
the adapters merge them (the image planner sends two assistant messages in a row); OpenAI keeps them apart. And a
server that ignores `stream: true` is read as the whole answer it sent."""

import httpx
import pytest

from llm import LLMRequest, Message, TextDelta
from llm.types import ToolCall, ToolResultPart
from tests.llm.answers import chat_completion
from tests.llm.loopback import Loopback
from tests.llm.our_client import client_for, provider_for

CONVERSATION = (
    Message.user("画一只猫"),
    Message.assistant("第一版计划"),
    Message.assistant("修订后的计划"),
    Message.assistant("", (ToolCall(id="call_1", name="render", arguments={"n": 1}),)),
    Message.tool_results([ToolResultPart(call_id="call_1", name="render", content="ok")]),
    Message.user("再亮一点"),
)


@pytest.mark.parametrize(
    ("protocol", "turns", "roles"), [("anthropic", "messages", "role"), ("gemini", "contents", "role")]
)
def test_turns_of_one_role_in_a_row_are_merged_into_one(protocol: str, turns: str, roles: str) -> None:
    adapter = provider_for(protocol, "http://127.0.0.1:9").adapter
    body = adapter.build_request(LLMRequest(messages=CONVERSATION), "model", stream=False).body

    sent = [turn[roles] for turn in body[turns]]

    assert sent == (["user", "assistant", "user"] if protocol == "anthropic" else ["user", "model", "user"])
    parts = body[turns][1]["content" if protocol == "anthropic" else "parts"]
    assert len(parts) == 3, "both plans and the tool call, in order"
    assert len(body[turns][2]["content" if protocol == "anthropic" else "parts"]) == 2, "the result, then the ask"


def test_openai_chat_keeps_each_message() -> None:
    adapter = provider_for("openai_chat", "http://127.0.0.1:9").adapter
    body = adapter.build_request(LLMRequest(messages=CONVERSATION), "model", stream=False).body

    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "assistant", "assistant", "tool", "user"]


async def test_a_server_that_ignores_stream_true_is_read_whole(loopback: Loopback, http: httpx.AsyncClient) -> None:
    loopback.queue(chat_completion("<think>hm</think>整段回答"))
    client = client_for("openai_chat", loopback, http, retry=None)

    async with client.stream(LLMRequest(messages=(Message.user("hi"),))) as stream:
        deltas = [event.text async for event in stream if isinstance(event, TextDelta)]
        answer = await stream.response()

    assert loopback.requests[0].json()["stream"] is True
    assert deltas == ["整段回答"] and answer.text == "整段回答"
