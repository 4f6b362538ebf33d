"""An `Answer` in each protocol's wire format, as the recorded fixtures in tests/fixtures/llm/openai_chat and
tests/fixtures/llm/anthropic show it: the whole JSON body, or the SSE events of a stream, each event with the
number of tokens it carries (what the server paces by); and the error bodies of a 429 and a 500.
"""

import json
from dataclasses import dataclass
from typing import Any

from tests.simulator.answers import Answer
from tests.simulator.requests import Protocol
from tests.simulator.text import tokens

CREATED = 1763700000
OPENAI_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "length": "length"}
ANTHROPIC_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}
SIGNATURE = "c2ltdWxhdGVkLXRoaW5raW5nLXNpZ25hdHVyZQ=="


@dataclass(frozen=True)
class SseItem:
    """One SSE event, encoded, and how many output tokens it carries."""

    data: bytes
    tokens: int


@dataclass(frozen=True)
class Wire:
    """Everything one answer needs on the wire: its id, model and prompt size."""

    protocol: Protocol
    answer_id: str
    model: str
    prompt_tokens: int

    def body(self, answer: Answer) -> dict[str, Any]:
        return self._chat_body(answer) if self.protocol == "openai_chat" else self._messages_body(answer)

    def events(self, answer: Answer, *, include_usage: bool) -> list[SseItem]:
        if self.protocol == "openai_chat":
            return self._chat_events(answer, include_usage)
        return self._messages_events(answer)

    def error(self, status: int, retry_after: int) -> dict[str, Any]:
        if self.protocol != "anthropic":  # OpenAI's chat and images APIs answer errors alike
            if status == 429:
                message = f"Rate limit reached for {self.model} on requests per min (RPM). Try again in {retry_after}s."
                return {"error": {"message": message, "type": "requests", "param": None, "code": "rate_limit_exceeded"}}
            message = "The server had an error while processing your request. Sorry about that!"
            return {"error": {"message": message, "type": "server_error", "param": None, "code": None}}
        if status == 429:
            error = {"type": "rate_limit_error", "message": "This request would exceed the rate limit."}
        else:
            error = {"type": "api_error", "message": "Internal server error"}
        return {"type": "error", "error": error, "request_id": f"req_{self.answer_id}"}

    def _usage(self, answer: Answer) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": answer.tokens,
            "total_tokens": self.prompt_tokens + answer.tokens,
        }

    def _chat_body(self, answer: Answer) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": answer.text or None, "refusal": None}
        if answer.reasoning:
            message["reasoning_content"] = answer.reasoning
        if answer.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in answer.tool_calls
            ]
        return {
            "id": f"chatcmpl-{self.answer_id}",
            "object": "chat.completion",
            "created": CREATED,
            "model": self.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": OPENAI_FINISH[answer.finish]}
            ],
            "usage": self._usage(answer),
        }

    def _chat_events(self, answer: Answer, include_usage: bool) -> list[SseItem]:
        head = {"id": f"chatcmpl-{self.answer_id}", "object": "chat.completion.chunk", "created": CREATED}
        head["model"] = self.model

        def chunk(delta: dict[str, Any], count: int = 0, finish: str | None = None) -> SseItem:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return _data(head | {"choices": [choice], "usage": None}, count)

        items = [chunk({"role": "assistant", "content": "", "refusal": None})]
        items += [chunk({"content": None, "reasoning_content": piece}, 1) for piece in tokens(answer.reasoning)]
        items += [chunk({"content": piece}, 1) for piece in tokens(answer.text)]
        for index, call in enumerate(answer.tool_calls):
            function = {"name": call.name, "arguments": ""}
            opening = {"index": index, "id": call.id, "type": "function", "function": function}
            items.append(chunk({"tool_calls": [opening]}, 1))
            items += [
                chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}, 1)
                for piece in tokens(call.arguments)
            ]
        items.append(chunk({}, finish=OPENAI_FINISH[answer.finish]))
        if include_usage:
            items.append(_data(head | {"choices": [], "usage": self._usage(answer)}, 0))
        return [*items, SseItem(b"data: [DONE]\n\n", 0)]

    def _messages_body(self, answer: Answer) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if answer.reasoning:
            content.append({"type": "thinking", "thinking": answer.reasoning, "signature": SIGNATURE})
        if answer.text:
            content.append({"type": "text", "text": answer.text})
        content += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c.arguments)} for c in answer.tool_calls
        ]
        return {
            "id": f"msg_{self.answer_id}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": ANTHROPIC_STOP[answer.finish],
            "stop_sequence": None,
            "usage": {"input_tokens": self.prompt_tokens, "output_tokens": answer.tokens},
        }

    def _messages_events(self, answer: Answer) -> list[SseItem]:
        start = self._messages_body(answer) | {"content": [], "stop_reason": None}
        start["usage"] = {"input_tokens": self.prompt_tokens, "output_tokens": 1}
        items = [_event("message_start", {"message": start}), _event("ping", {})]
        blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        if answer.reasoning:
            deltas = [{"type": "thinking_delta", "thinking": piece} for piece in tokens(answer.reasoning)]
            blocks.append(
                ({"type": "thinking", "thinking": ""}, [*deltas, {"type": "signature_delta", "signature": SIGNATURE}])
            )
        if answer.text:
            blocks.append(
                ({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in tokens(answer.text)])
            )
        for call in answer.tool_calls:
            pieces = ["", *tokens(call.arguments)]
            block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
            blocks.append((block, [{"type": "input_json_delta", "partial_json": p} for p in pieces]))
        for index, (block, deltas) in enumerate(blocks):
            items.append(_event("content_block_start", {"index": index, "content_block": block}))
            items += [
                _event("content_block_delta", {"index": index, "delta": d}, 0 if d["type"] == "signature_delta" else 1)
                for d in deltas
            ]
            items.append(_event("content_block_stop", {"index": index}))
        stop = {"stop_reason": ANTHROPIC_STOP[answer.finish], "stop_sequence": None}
        items.append(_event("message_delta", {"delta": stop, "usage": {"output_tokens": answer.tokens}}))
        return [*items, _event("message_stop", {})]


def _data(document: dict[str, Any], count: int) -> SseItem:
    return SseItem(f"data: {json.dumps(document, ensure_ascii=False)}\n\n".encode(), count)


def _event(name: str, fields: dict[str, Any], count: int = 0) -> SseItem:
    document = {"type": name, **fields}
    return SseItem(f"event: {name}\ndata: {json.dumps(document, ensure_ascii=False)}\n\n".encode(), count)


def _input(arguments: str) -> Any:
    """A tool_use block's input: the arguments, or {} when truncation left them unreadable."""
    try:
        return json.loads(arguments)
    except json.JSONDecodeError:
        return {}
