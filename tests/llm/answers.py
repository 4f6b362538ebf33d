"""Provider answers built in code, for tests that need a particular reply (an intent, a review) rather than one
of the recorded fixtures, and the settings of a worker whose LLM is the loopback server (OpenAI Chat protocol) or
an Anthropic Messages server at a base URL."""

import json
from typing import Any

from tests.llm.loopback import Fixture


def chat_completion(content: str | dict[str, Any], *, prompt_tokens: int = 120, completion_tokens: int = 40) -> Fixture:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return Fixture.json(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1763700000,
            "model": "gpt-4.1-mini-2025-04-14",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def llm_settings(base_url: str) -> dict[str, Any]:
    """Settings fields configuring the OpenAI provider, over Chat Completions, at the loopback server."""
    return {
        "llm_provider": "openai",
        "llm_protocol": "chat",
        "openai_api_key": "test-key",
        "llm_base_url": f"{base_url}/v1",
    }


def anthropic_llm_settings(base_url: str) -> dict[str, Any]:
    """Settings fields configuring the Anthropic provider (Messages, `POST /v1/messages`) at `base_url`."""
    return {"llm_provider": "anthropic", "anthropic_api_key": "test-key", "llm_base_url": base_url}


def text_answer(protocol: str, text: str) -> Fixture:
    """A minimal non-streaming answer carrying `text`, in the given protocol's wire format."""
    if protocol == "openai_chat":
        return chat_completion(text)
    if protocol == "anthropic":
        return Fixture.json(
            {
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 30, "output_tokens": 10},
            }
        )
    if protocol == "openai_responses":
        return Fixture.json(
            {
                "id": "resp_test",
                "object": "response",
                "status": "completed",
                "model": "gpt-4.1-mini",
                "output": [
                    {
                        "type": "message",
                        "id": "msg_test",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}],
                    }
                ],
                "usage": {"input_tokens": 30, "output_tokens": 10, "total_tokens": 40},
            }
        )
    return Fixture.json(
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 10, "totalTokenCount": 40},
            "modelVersion": "gemini-2.5-flash",
        }
    )


def chat_stream(pieces: list[str]) -> Fixture:
    """A streamed chat completion carrying `pieces` as its content deltas, in the recorded wire format of
    `tests/fixtures/llm/openai_chat/text_stream.http` (role chunk, deltas, finish chunk, usage chunk, [DONE])."""
    head = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1763700000, "model": "gpt-4.1-mini"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return head | {"choices": [choice], "usage": None}

    usage = {"prompt_tokens": 120, "completion_tokens": len(pieces), "total_tokens": 120 + len(pieces)}
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in pieces]
    chunks += [chunk({}, "stop"), head | {"choices": [], "usage": usage}]
    body = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return Fixture(status=200, headers={"content-type": "text/event-stream; charset=utf-8"}, body=body.encode())


def chat_tool_calls(calls: list[tuple[str, str, dict[str, Any]]], content: str | None = None) -> Fixture:
    """A chat completion whose answer is tool calls: (id, tool name, arguments) each."""
    tool_calls = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        for call_id, name, arguments in calls
    ]
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
    return Fixture.json(
        {
            "id": "chatcmpl-tools",
            "object": "chat.completion",
            "created": 1763700000,
            "model": "gpt-4.1-mini-2025-04-14",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 150, "completion_tokens": 20, "total_tokens": 170},
        }
    )
