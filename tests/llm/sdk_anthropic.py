"""What the official `anthropic` SDK makes of an Anthropic Messages fixture, for the peer-parity test.

The SDK's sync client is pointed at the loopback server and asked a small question, with the server tools the
fixture's turn used (web search and fetch, code execution); streams go through
`client.messages.stream(...).get_final_message()`, the SDK's own accumulator, so both paths end in a `Message`.
Its visible text is the concatenation of the `text` blocks (never `thinking`), its tool calls are the `tool_use`
blocks in order (never `server_tool_use`: Anthropic runs those itself), and its usage is normalised as the
project's client does: input counts the uncached, cache-write and cache-read tokens together. Error fixtures make
the SDK raise: its exception class follows the HTTP status, so `error_midstream` (an `overloaded_error` event on a
200 stream) comes out as a plain `APIStatusError`.
"""

import warnings
from typing import Any

import anthropic
from anthropic.types import Message, ToolParam, ToolUnionParam

from tests.llm.loopback import Loopback
from tests.llm.outcome import Outcome, ToolCallOutcome

MODEL = "claude-sonnet-4-5"
TOOLS: list[ToolParam] = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. 杭州"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
    {
        "name": "get_time",
        "description": "The current local time.",
        "input_schema": {"type": "object", "properties": {}},
    },
]


SERVER_TOOLS: dict[str, list[ToolUnionParam]] = {
    "web_search": [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        {"type": "web_fetch_20250910", "name": "web_fetch", "max_uses": 3},
    ],
    "code_execution": [{"type": "code_execution_20250825", "name": "code_execution"}],
}
"""Server tools by the fixture-name fragment that says the turn used them."""


def official_outcome(loopback: Loopback, stem: str) -> Outcome:
    loopback.queue(f"anthropic/{stem}")
    question = "杭州现在的天气和时间？" if stem.startswith("tools") else "介绍一下杭州西湖。"
    request: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 2048,
        "messages": [{"role": "user", "content": question}],
    }
    tools: list[ToolUnionParam] = [*TOOLS] if stem.startswith("tools") else []
    for fragment, server_tools in SERVER_TOOLS.items():
        if fragment in stem:
            tools += server_tools
    if tools:
        request["tools"] = tools
    if stem.startswith("thinking"):
        request["thinking"] = {"type": "enabled", "budget_tokens": 1024}
    with (
        anthropic.Anthropic(api_key="test-key", base_url=loopback.base_url, max_retries=0) as client,
        warnings.catch_warnings(),
    ):
        # The SDK warns that this model is deprecated, and pytest turns warnings into errors.
        warnings.filterwarnings("ignore", message="The model .* is deprecated", category=DeprecationWarning)
        if "stream" in stem:  # the `*_stream` fixtures, and `error_midstream`
            with client.messages.stream(**request) as stream:
                return _outcome(stream.get_final_message())
        return _outcome(client.messages.create(**request))


def _outcome(message: Message) -> Outcome:
    usage = message.usage
    input_tokens = usage.input_tokens + (usage.cache_creation_input_tokens or 0) + (usage.cache_read_input_tokens or 0)
    return Outcome(
        text="".join(block.text for block in message.content if block.type == "text"),
        tool_calls=tuple(
            ToolCallOutcome(block.id, block.name, dict(block.input))
            for block in message.content
            if block.type == "tool_use"
        ),
        input_tokens=input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=input_tokens + usage.output_tokens,
    )
