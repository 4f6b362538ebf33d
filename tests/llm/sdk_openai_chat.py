"""The official `openai` SDK's reading of an `openai_chat` fixture (Chat Completions, POST /v1/chat/completions).

Non-streaming fixtures go through `client.chat.completions.create`; `_stream` fixtures through
`client.chat.completions.stream(...)` with `stream_options={"include_usage": True}`, and the SDK's own accumulator
(`get_final_completion`) assembles content, tool calls and the usage from the final `"choices": []` chunk.

The tools are sent without `strict`, so the SDK leaves `arguments` as the raw JSON string (`parsed_arguments` is
None); the arguments are decoded here, and an empty string (a parameterless call from some servers) is read as {}.
"""

import json
from typing import Any

from openai import Omit, OpenAI, omit
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam, ChatCompletionToolParam
from openai.types.completion_usage import CompletionUsage

from tests.llm.loopback import Loopback
from tests.llm.outcome import Outcome, ToolCallOutcome

PROTOCOL = "openai_chat"
MODEL = "gpt-4.1-mini"
TOOLS: list[ChatCompletionToolParam] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "获取指定城市的当前天气",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "城市名，例如 杭州"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city", "unit"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "获取当前时间",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
]


def official_outcome(loopback: Loopback, stem: str) -> Outcome:
    loopback.queue(f"{PROTOCOL}/{stem}")
    client = OpenAI(api_key="test-key", base_url=loopback.base_url + "/v1", max_retries=0)
    with_tools = stem.startswith("tools")
    prompt = "杭州现在天气怎么样？现在几点了？" if with_tools else "用一句话介绍杭州。"
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": prompt}]
    tools: list[ChatCompletionToolParam] | Omit = TOOLS if with_tools else omit
    completion: ChatCompletion
    if "stream" in stem:  # the `*_stream` fixtures, and `error_midstream`
        with client.chat.completions.stream(
            model=MODEL, messages=messages, tools=tools, stream_options={"include_usage": True}
        ) as stream:
            completion = stream.get_final_completion()
    else:
        completion = client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
    client.close()
    return _outcome(completion)


def _outcome(completion: ChatCompletion) -> Outcome:
    message = completion.choices[0].message
    calls = tuple(
        ToolCallOutcome(call.id, call.function.name, _arguments(call.function.arguments))
        for call in message.tool_calls or []
        if call.type == "function"
    )
    usage = completion.usage or CompletionUsage(prompt_tokens=0, completion_tokens=0, total_tokens=0)
    return Outcome(
        text=message.content or "",
        tool_calls=calls,
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
    )


def _arguments(raw: str) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(raw) if raw.strip() else {}
    return decoded
