"""Anthropic Messages API (`POST /v1/messages`): system as its own field, content blocks, SSE with named events.

Consecutive messages of one role (two assistant turns, tool results then a user turn) are merged into one, as
the API requires turns to alternate.

Content blocks: the answer is the `text` blocks joined, the tool calls are the `tool_use` blocks (client tools).
Every other block is skipped, whole or streamed: `thinking` and `redacted_thinking`, the server tools Anthropic
runs itself (`server_tool_use` and its results: `web_search_tool_result`, `web_fetch_tool_result`,
`code_execution_tool_result`, `bash_code_execution_tool_result`, `text_editor_code_execution_tool_result`,
`tool_search_tool_result`), `mcp_tool_use` / `mcp_tool_result`, `container_upload`, and any type added later.

Stream: message_start (usage so far) → content_block_start/delta/stop per block, the deltas going only to text
blocks (`text_delta`) and client tool calls (`input_json_delta`), never to the skipped blocks (a server tool's
`input_json_delta`, `thinking_delta`, `signature_delta`, `citations_delta`, unknown kinds; a `thinking_delta`
only yields a `Thinking` event) → message_delta (stop reason, cumulative usage: each count it carries replaces
message_start's, and when server tools ran it carries the whole turn's input) → message_stop. `ping` is ignored;
an `error` event mid-stream (HTTP status still 200) is raised as a typed error.
"""

from typing import Any

from llm.adapters.base import HttpCall, StreamDecoder, WireAdapter, alternating, present, settle_finish_reason
from llm.errors import (
    AuthenticationError,
    BadRequestError,
    LLMError,
    MalformedResponseError,
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
    """Anthropic Messages: the answer from `text` blocks, calls from `tool_use` blocks, typed errors by `error.type`."""

    protocol = "anthropic"

    def build_request(self, request: LLMRequest, model: str, *, stream: bool) -> HttpCall:
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_output_tokens or DEFAULT_MAX_TOKENS,
            "messages": alternating([_message(m) for m in request.messages]),
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
        return LLMResponse(
            text=text,
            tool_calls=calls,
            finish_reason=settle_finish_reason(STOP_REASONS.get(body.get("stop_reason") or "", "stop"), calls),
            usage=_token_usage(body.get("usage") or {}),
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
        self.block_types: dict[int, str] = {}
        """The type of every content block started so far, by index."""
        self.usage_counts: dict[str, Any] = {}
        """message_start's usage, each count replaced by the latest message_delta that carries it."""

    def feed(self, event: SseEvent) -> None:
        data = self.load(event.data)
        kind = data.get("type", event.event)
        if kind == "message_start":
            message = data["message"]
            self.acc.model, self.acc.response_id = message.get("model"), message.get("id")
            self._count(message.get("usage"))
        elif kind == "content_block_start":
            self._start_block(data["index"], data["content_block"])
        elif kind == "content_block_delta":
            self._delta(data["index"], data["delta"])
        elif kind == "content_block_stop":
            if self._block_type(data["index"]) == "tool_use":
                self.acc.end_call(data["index"])
        elif kind == "message_delta":
            if reason := data.get("delta", {}).get("stop_reason"):
                self.acc.finish_reason = STOP_REASONS.get(reason, "stop")
            self._count(data.get("usage"))
        elif kind == "message_stop":
            self.finished = True
        elif kind == "error":
            raise self.adapter.convert_stream_error(data, status_hint=500)

    def _start_block(self, index: int, block: dict[str, Any]) -> None:
        self.block_types[index] = block["type"]
        if block["type"] == "tool_use":
            self.acc.start_call(index, block["id"], block["name"])
        elif block["type"] == "text":
            self.acc.text(block.get("text", ""))

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block_type = self._block_type(index)
        if block_type == "text" and delta["type"] == "text_delta":
            self.acc.text(delta["text"])
        elif block_type == "tool_use" and delta["type"] == "input_json_delta":
            self.acc.call_arguments(index, delta.get("partial_json", ""))
        elif delta["type"] == "thinking_delta":
            self.acc.thinking()

    def _block_type(self, index: int) -> str:
        try:
            return self.block_types[index]
        except KeyError:
            raise MalformedResponseError(
                f"stream refers to content block {index} before its content_block_start", provider=self.provider
            ) from None

    def _count(self, usage: dict[str, Any] | None) -> None:
        self.usage_counts |= {name: count for name, count in (usage or {}).items() if count is not None}
        self.acc.usage = _token_usage(self.usage_counts)


def _message(message: Message) -> dict[str, Any]:
    role = "assistant" if message.role == "assistant" else "user"
    return {"role": role, "content": [_block(p) for p in message.parts]}


def _block(part: TextPart | ToolCallPart | ToolResultPart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ToolCallPart):
        return {"type": "tool_use", "id": part.call.id, "name": part.call.name, "input": part.call.arguments}
    return {"type": "tool_result", "tool_use_id": part.call_id, "content": part.content, "is_error": part.is_error}


def _token_usage(usage: dict[str, Any]) -> TokenUsage:
    """Input is the uncached, cache-write and cache-read tokens together ("Prompt caching"); total = input + output."""
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    input_tokens = sum(usage.get(k) or 0 for k in keys)
    output_tokens = usage.get("output_tokens") or 0
    return TokenUsage(input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=input_tokens + output_tokens)
