"""Anthropic Messages API (`POST /v1/messages`): system as its own field, content blocks, SSE with named events.

Stream: message_start (input usage) → content_block_start/delta/stop per block (text_delta, input_json_delta,
thinking) → message_delta (stop reason, cumulative output usage) → message_stop. `ping` is ignored; an `error`
event mid-stream (HTTP status still 200) is raised as a typed error.
"""

from typing import Any

from llm.adapters.base import HttpCall, StreamDecoder, WireAdapter, present, settle_finish_reason
from llm.errors import (
    AuthenticationError,
    BadRequestError,
    LLMError,
    OverloadedError,
    QuotaExhaustedError,
    RateLimitError,
    ServerError,
)
from llm.sse import SseEvent
from llm.types import (
    FinishReason,
    LLMRequest,
    LLMResponse,
    Message,
    TextPart,
    TokenUsage,
    ToolCall,
    ToolCallPart,
    ToolResultPart,
)

DEFAULT_MAX_TOKENS = 4096
"""Anthropic requires max_tokens; used when the request leaves it open."""

STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "content_filter",
}

ERROR_TYPES: dict[str, type[LLMError]] = {
    "invalid_request_error": BadRequestError,
    "not_found_error": BadRequestError,
    "request_too_large": BadRequestError,
    "authentication_error": AuthenticationError,
    "permission_error": AuthenticationError,
    "billing_error": QuotaExhaustedError,
    "rate_limit_error": RateLimitError,
    "api_error": ServerError,
    "timeout_error": ServerError,
    "overloaded_error": OverloadedError,
}


class AnthropicAdapter(WireAdapter):
    protocol = "anthropic"

    def build_request(self, request: LLMRequest, model: str, *, stream: bool) -> HttpCall:
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_output_tokens or DEFAULT_MAX_TOKENS,
            "messages": [_message(m) for m in request.messages],
        }
        body |= present(system=request.system or None, temperature=request.temperature, top_p=request.top_p)
        if request.tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools
            ]
        if stream:
            body["stream"] = True
        return HttpCall(path="/v1/messages", body=body)

    def parse_response(self, body: Any) -> LLMResponse:
        text = "".join(b["text"] for b in body["content"] if b["type"] == "text")
        calls = tuple(
            ToolCall(id=b["id"], name=b["name"], arguments=b.get("input") or {})
            for b in body["content"]
            if b["type"] == "tool_use"
        )
        usage = body.get("usage") or {}
        return LLMResponse(
            text=text,
            tool_calls=calls,
            finish_reason=settle_finish_reason(STOP_REASONS.get(body.get("stop_reason") or "", "stop"), calls),
            usage=_usage(_input_tokens(usage), usage.get("output_tokens") or 0),
            model=body.get("model"),
            response_id=body.get("id"),
        )

    def stream_decoder(self) -> StreamDecoder:
        return _AnthropicStream(self)

    def error_class(self, status: int, body: Any) -> type[LLMError] | None:
        error = body.get("error") if isinstance(body, dict) else None
        return ERROR_TYPES.get(error.get("type", "")) if isinstance(error, dict) else None


class _AnthropicStream(StreamDecoder):
    def __init__(self, adapter: AnthropicAdapter) -> None:
        super().__init__(adapter.provider)
        self.adapter = adapter
        self.input_tokens = 0
        self.tool_blocks: set[int] = set()

    def feed(self, event: SseEvent) -> None:
        data = self.load(event.data)
        kind = data.get("type", event.event)
        if kind == "message_start":
            message = data["message"]
            self.acc.model, self.acc.response_id = message.get("model"), message.get("id")
            self.input_tokens = _input_tokens(message.get("usage") or {})
            self.acc.usage = _usage(self.input_tokens, (message.get("usage") or {}).get("output_tokens") or 0)
        elif kind == "content_block_start":
            block = data["content_block"]
            if block["type"] == "tool_use":
                self.tool_blocks.add(data["index"])
                self.acc.start_call(data["index"], block["id"], block["name"])
            elif block["type"] == "text":
                self.acc.text(block.get("text", ""))
        elif kind == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                self.acc.text(delta["text"])
            elif delta["type"] == "input_json_delta":
                self.acc.call_arguments(data["index"], delta.get("partial_json", ""))
        elif kind == "content_block_stop":
            if data["index"] in self.tool_blocks:
                self.acc.end_call(data["index"])
        elif kind == "message_delta":
            if reason := data.get("delta", {}).get("stop_reason"):
                self.acc.finish_reason = STOP_REASONS.get(reason, "stop")
            if (output := (data.get("usage") or {}).get("output_tokens")) is not None:
                self.acc.usage = _usage(self.input_tokens, output)
        elif kind == "message_stop":
            self.finished = True
        elif kind == "error":
            raise self.adapter.convert_stream_error(data, status_hint=500)


def _message(message: Message) -> dict[str, Any]:
    role = "assistant" if message.role == "assistant" else "user"
    return {"role": role, "content": [_block(p) for p in message.parts]}


def _block(part: TextPart | ToolCallPart | ToolResultPart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ToolCallPart):
        return {"type": "tool_use", "id": part.call.id, "name": part.call.name, "input": part.call.arguments}
    return {"type": "tool_result", "tool_use_id": part.call_id, "content": part.content, "is_error": part.is_error}


def _input_tokens(usage: dict[str, Any]) -> int:
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(usage.get(k) or 0 for k in keys)


def _usage(input_tokens: int, output_tokens: int) -> TokenUsage:
    return TokenUsage(input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=input_tokens + output_tokens)
