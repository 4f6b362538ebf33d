"""The official `openai` SDK's reading of an `openai_responses` fixture (Responses API, POST /v1/responses).

Non-streaming fixtures go through `client.responses.create`; `_stream` fixtures through
`client.responses.stream(...)`, whose accumulator (`get_final_response`) returns the response from
`response.completed`. Text is the SDK's `Response.output_text` (output_text parts of message items only, so
reasoning items never count); tool calls are the `function_call` output items, identified by their `call_id`
(what a later `function_call_output` must reference), not the item id. An empty argument string is read as {}.
"""

import json
from typing import Any

from openai import Omit, OpenAI, omit
from openai.types.responses import FunctionToolParam, Response

from tests.llm.loopback import Loopback
from tests.llm.outcome import Outcome, ToolCallOutcome

PROTOCOL = "openai_responses"
MODEL = "gpt-4.1-mini"
TOOLS: list[FunctionToolParam] = [
    {
        "type": "function",
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
        "strict": True,
    },
    {
        "type": "function",
        "name": "get_time",
        "description": "获取当前时间",
        "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
        "strict": True,
    },
]


def official_outcome(loopback: Loopback, stem: str) -> Outcome:
    loopback.queue(f"{PROTOCOL}/{stem}")
    client = OpenAI(api_key="test-key", base_url=loopback.base_url + "/v1", max_retries=0)
    with_tools = stem.startswith("tools")
    prompt = "杭州现在天气怎么样？现在几点了？" if with_tools else "用一句话介绍杭州。"
    tools: list[FunctionToolParam] | Omit = TOOLS if with_tools else omit
    response: Response
    if "stream" in stem:  # the `*_stream` fixtures, and `error_midstream`
        with client.responses.stream(model=MODEL, input=prompt, tools=tools) as stream:
            response = stream.get_final_response()
    else:
        response = client.responses.create(model=MODEL, input=prompt, tools=tools)
    client.close()
    return _outcome(response)


def _outcome(response: Response) -> Outcome:
    calls = tuple(
        ToolCallOutcome(item.call_id, item.name, _arguments(item.arguments))
        for item in response.output
        if item.type == "function_call"
    )
    usage = response.usage
    return Outcome(
        text=response.output_text,
        tool_calls=calls,
        input_tokens=usage.input_tokens if usage else 0,
        output_tokens=usage.output_tokens if usage else 0,
        total_tokens=usage.total_tokens if usage else 0,
    )


def _arguments(raw: str) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(raw) if raw.strip() else {}
    return decoded
