"""Google Gemini API: `POST {base}/models/{model}:generateContent`, and `:streamGenerateContent?alt=sse`.

Every streamed chunk is a whole `GenerateContentResponse`; a `functionCall` part arrives whole in one chunk (no
argument fragments, no end marker), so each becomes start + one delta + end at once, and the stream simply ends.
A part's `thoughtSignature` is kept on the tool call and sent back with it on the next turn, as thinking models
require. Thought parts (`thought: true`) are not answer text. Consecutive contents of one role are merged into
one, as user and model turns must alternate. Errors carry `google.rpc` details: `RetryInfo`
gives the retry delay, and a `QuotaFailure` on a per-day quota means the quota is spent (not retryable).
"""

import json
from typing import Any

from llm.adapters.base import HttpCall, StreamAccumulator, StreamDecoder, WireAdapter, alternating, present
from llm.errors import LLMError, QuotaExhaustedError, RateLimitError
from llm.sse import SseEvent
from llm.types import (
    FinishReason,
    LLMRequest,
    LLMResponse,
    Message,
    TextPart,
    TokenUsage,
    ToolCallPart,
    ToolResultPart,
)

GENERATED_ID_PREFIX = "gemini-call-"
"""Ids made up here for calls Gemini sent without one; never sent back to Gemini."""

FINISH_REASONS: dict[str, FinishReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
}
RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure"


class GeminiAdapter(WireAdapter):
    """Gemini generateContent: parts for text and whole function calls, thought signatures, `google.rpc` errors."""

    protocol = "gemini"

    def build_request(self, request: LLMRequest, model: str, *, stream: bool) -> HttpCall:
        body: dict[str, Any] = {"contents": alternating([_content(m) for m in request.messages], content="parts")}
        if request.system:
            body["systemInstruction"] = {"parts": [{"text": request.system}]}
        if request.tools:
            declarations = [
                {"name": t.name, "description": t.description, "parametersJsonSchema": t.input_schema}
                for t in request.tools
            ]
            body["tools"] = [{"functionDeclarations": declarations}]
        config = present(temperature=request.temperature, topP=request.top_p, maxOutputTokens=request.max_output_tokens)
        if request.json_output is not None and self.json_mode == "json_schema":
            config["responseMimeType"] = "application/json"
            config["responseJsonSchema"] = request.json_output.schema_
        if config:
            body["generationConfig"] = config
        if stream:
            return HttpCall(path=f"/models/{model}:streamGenerateContent", body=body, params={"alt": "sse"})
        return HttpCall(path=f"/models/{model}:generateContent", body=body)

    def parse_response(self, body: Any) -> LLMResponse:
        acc = StreamAccumulator(self.provider)
        _absorb(acc, body)
        acc.drain()
        return acc.response()

    def stream_decoder(self) -> StreamDecoder:
        return _GeminiStream(self)

    def error_class(self, status: int, body: Any) -> type[LLMError] | None:
        if status != 429:
            return None
        for detail in _details(body):
            if detail.get("@type") == QUOTA_FAILURE:
                violations = detail.get("violations") or []
                if any("PerDay" in str(v.get("quotaId", "")) for v in violations):
                    return QuotaExhaustedError
        return RateLimitError

    def retry_after(self, body: Any) -> float | None:
        for detail in _details(body):
            if detail.get("@type") == RETRY_INFO and isinstance(delay := detail.get("retryDelay"), str):
                try:
                    return float(delay.removesuffix("s"))
                except ValueError:
                    return None
        return None


class _GeminiStream(StreamDecoder):
    needs_end_marker = False

    def __init__(self, adapter: GeminiAdapter) -> None:
        super().__init__(adapter.provider)
        self.adapter = adapter

    def feed(self, event: SseEvent) -> None:
        chunk = self.load(event.data)
        if isinstance(chunk, dict) and "error" in chunk:
            status = chunk["error"].get("code") if isinstance(chunk["error"], dict) else None
            raise self.adapter.convert_stream_error(chunk, status_hint=status if isinstance(status, int) else 500)
        _absorb(self.acc, chunk)


def _absorb(acc: StreamAccumulator, chunk: dict[str, Any]) -> None:
    """One GenerateContentResponse (a whole answer, or one streamed chunk of it) into the accumulator."""
    acc.model = chunk.get("modelVersion") or acc.model
    acc.response_id = chunk.get("responseId") or acc.response_id
    if usage := chunk.get("usageMetadata"):
        output = (usage.get("candidatesTokenCount") or 0) + (usage.get("thoughtsTokenCount") or 0)
        acc.usage = TokenUsage(
            input_tokens=usage.get("promptTokenCount") or 0,
            output_tokens=output,
            total_tokens=usage.get("totalTokenCount") or 0,
        )
    if not chunk.get("candidates") and (chunk.get("promptFeedback") or {}).get("blockReason"):
        acc.finish_reason = "content_filter"
    for candidate in chunk.get("candidates") or []:
        if candidate.get("index", 0) != 0:
            continue
        for part in (candidate.get("content") or {}).get("parts") or []:
            if "functionCall" in part:
                call = part["functionCall"]
                key = len(acc.calls)
                acc.start_call(
                    key, call.get("id") or f"{GENERATED_ID_PREFIX}{key}", call["name"], part.get("thoughtSignature")
                )
                acc.call_arguments(key, json.dumps(call.get("args") or {}, ensure_ascii=False))
                acc.end_call(key)
            elif part.get("thought"):
                acc.thinking()
            elif "text" in part:
                acc.text(part["text"])
        if reason := candidate.get("finishReason"):
            acc.finish_reason = FINISH_REASONS.get(reason, "stop")


def _content(message: Message) -> dict[str, Any]:
    role = "model" if message.role == "assistant" else "user"
    return {"role": role, "parts": [_part(p) for p in message.parts]}


def _part(part: TextPart | ToolCallPart | ToolResultPart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"text": part.text}
    if isinstance(part, ToolCallPart):
        call: dict[str, Any] = {"name": part.call.name, "args": part.call.arguments}
        if not part.call.id.startswith(GENERATED_ID_PREFIX):
            call["id"] = part.call.id
        entry: dict[str, Any] = {"functionCall": call}
        if part.call.signature:
            entry["thoughtSignature"] = part.call.signature
        return entry
    result: dict[str, Any] = {
        "name": part.name,
        "response": {"error": part.content} if part.is_error else {"result": part.content},
    }
    if not part.call_id.startswith(GENERATED_ID_PREFIX):
        result["id"] = part.call_id
    return {"functionResponse": result}


def _details(body: Any) -> list[dict[str, Any]]:
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    return [d for d in details if isinstance(d, dict)] if isinstance(details, list) else []
