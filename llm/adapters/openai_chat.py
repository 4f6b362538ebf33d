"""OpenAI Chat Completions (`POST {base}/chat/completions`), also spoken by DeepSeek, Qwen (DashScope compatible
mode), Ollama and most OpenAI-compatible servers.

Stream: `data:` chunks whose `delta.tool_calls[]` are identified by `index` (only the first fragment of a call
carries its id and name), an optional usage chunk with `"choices": []` (`stream_options.include_usage`), then
`data: [DONE]`. Reasoning sent apart (`reasoning_content`, DeepSeek and vLLM; `reasoning`, some others) is not
answer text: it only yields a `Thinking` event. There is no per-call end marker: calls end when the turn does. A
chunk carrying `error` (sent by compatible servers after a 200, sometimes followed by `[DONE]` all the same) is
raised as the typed error its own status, code and type mean (`openai_stream_error_status`), not as a blanket
server error.
"""

import json
from typing import Any, Literal

from llm.adapters.base import (
    HttpCall,
    JsonMode,
    StreamDecoder,
    WireAdapter,
    present,
    read_call,
    settle_finish_reason,
)
from llm.adapters.openai_errors import openai_error_class, openai_stream_error_status
from llm.errors import LLMError
from llm.sse import SseEvent
from llm.types import FinishReason, LLMRequest, LLMResponse, Message, TokenUsage, ToolCallPart, ToolResultPart

FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
}

MaxTokensField = Literal["max_completion_tokens", "max_tokens"]


class OpenAIChatAdapter(WireAdapter):
    """Chat Completions, for OpenAI and compatible servers; `max_tokens_field` is the server's name for the limit."""

    protocol = "openai_chat"

    def __init__(self, provider: str, *, json_mode: JsonMode, max_tokens_field: MaxTokensField) -> None:
        super().__init__(provider, json_mode=json_mode)
        self.max_tokens_field = max_tokens_field

    def build_request(self, request: LLMRequest, model: str, *, stream: bool) -> HttpCall:
        messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
        for message in request.messages:
            messages += _messages(message)
        body: dict[str, Any] = {"model": model, "messages": messages}
        body |= present(temperature=request.temperature, top_p=request.top_p)
        body |= present(**{self.max_tokens_field: request.max_output_tokens})
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
                }
                for t in request.tools
            ]
        if request.json_output is not None and self.json_mode == "json_schema":
            schema = {"name": request.json_output.name, "schema": request.json_output.schema_, "strict": False}
            body["response_format"] = {"type": "json_schema", "json_schema": schema}
        elif request.json_output is not None and self.json_mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return HttpCall(path="/chat/completions", body=body)

    def parse_response(self, body: Any) -> LLMResponse:
        choice = body["choices"][0]
        message = choice["message"]
        reason = FINISH_REASONS.get(choice.get("finish_reason") or "", "stop")
        calls = tuple(
            read_call(
                c["id"],
                c["function"]["name"],
                c["function"].get("arguments") or "",
                provider=self.provider,
                finish_reason=reason,
            )
            for c in message.get("tool_calls") or []
        )
        return LLMResponse(
            text=message.get("content") or "",
            tool_calls=calls,
            finish_reason=settle_finish_reason(reason, calls),
            usage=_usage(body.get("usage")),
            model=body.get("model"),
            response_id=body.get("id"),
        )

    def stream_decoder(self) -> StreamDecoder:
        return _ChatStream(self)

    def error_class(self, status: int, body: Any) -> type[LLMError] | None:
        return openai_error_class(body)


class _ChatStream(StreamDecoder):
    def __init__(self, adapter: OpenAIChatAdapter) -> None:
        super().__init__(adapter.provider)
        self.adapter = adapter

    def feed(self, event: SseEvent) -> None:
        if event.data.strip() == "[DONE]":
            self.finished = True
            return
        chunk = self.load(event.data)
        if "error" in chunk:
            raise self.adapter.convert_stream_error(chunk, status_hint=openai_stream_error_status(chunk))
        self.acc.model = chunk.get("model") or self.acc.model
        self.acc.response_id = chunk.get("id") or self.acc.response_id
        if chunk.get("usage"):
            self.acc.usage = _usage(chunk["usage"])
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if delta.get("reasoning_content") or delta.get("reasoning"):
                self.acc.thinking()
            self.acc.text(delta.get("content") or "")
            for fragment in delta.get("tool_calls") or []:
                index, function = fragment.get("index", 0), fragment.get("function") or {}
                if not self.acc.has_call(index):
                    call_id = fragment.get("id") or f"call_{index}"
                    self.acc.start_call(index, call_id, function.get("name") or "")
                self.acc.call_arguments(index, function.get("arguments") or "")
            if reason := choice.get("finish_reason"):
                self.acc.finish_reason = FINISH_REASONS.get(reason, "stop")

    def complete(self) -> bool:
        """Some compatible servers omit `[DONE]`; a turn that said why it finished is complete."""
        return self.finished or self.acc.finish_reason is not None


def _messages(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {"role": "tool", "tool_call_id": p.call_id, "content": p.content}
            for p in message.parts
            if isinstance(p, ToolResultPart)
        ]
    if message.role == "user":
        return [{"role": "user", "content": message.text}]
    entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    calls = [p.call for p in message.parts if isinstance(p, ToolCallPart)]
    if calls:
        entry["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
            }
            for c in calls
        ]
    return [entry]


def _usage(usage: dict[str, Any] | None) -> TokenUsage:
    usage = usage or {}
    prompt, completion = usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0
    return TokenUsage(
        input_tokens=prompt, output_tokens=completion, total_tokens=usage.get("total_tokens") or prompt + completion
    )
