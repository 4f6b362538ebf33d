"""OpenAI Responses API (`POST {base}/responses`): `instructions` for the system prompt, `input` items, typed
output items. The seed's note: some OpenAI endpoints speak only this protocol, so it is OpenAI's default.

Stream: named events. Function-call arguments arrive as `response.function_call_arguments.delta` keyed by the
output item's `item_id` (`fc_…`), while tool results must reference the item's `call_id` (`call_…`); the client
keys fragments by item id and reports the call id. `response.completed` carries usage and ends the stream;
`response.failed` and `error` events are raised as typed errors, `response.incomplete` ends it early.
"""

import json
from typing import Any

from llm.adapters.base import HttpCall, StreamDecoder, WireAdapter, parse_arguments, present, settle_finish_reason
from llm.adapters.openai_errors import openai_error_class
from llm.errors import LLMError
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

INCOMPLETE_REASONS: dict[str, FinishReason] = {"max_output_tokens": "max_tokens", "content_filter": "content_filter"}


class OpenAIResponsesAdapter(WireAdapter):
    """OpenAI Responses: `input` items in, typed `output` items out, nothing stored by OpenAI (`store: false`)."""

    protocol = "openai_responses"

    def build_request(self, request: LLMRequest, model: str, *, stream: bool) -> HttpCall:
        body: dict[str, Any] = {
            "model": model,
            "input": [i for m in request.messages for i in _items(m)],
            "store": False,
        }
        body |= present(
            instructions=request.system or None,
            temperature=request.temperature,
            top_p=request.top_p,
            max_output_tokens=request.max_output_tokens,
        )
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                    "strict": False,
                }
                for t in request.tools
            ]
        if request.json_output is not None and self.json_mode == "json_schema":
            output = request.json_output
            body["text"] = {
                "format": {"type": "json_schema", "name": output.name, "schema": output.schema_, "strict": False}
            }
        if stream:
            body["stream"] = True
        return HttpCall(path="/responses", body=body)

    def parse_response(self, body: Any) -> LLMResponse:
        if body.get("status") == "failed":
            raise self.failed(body)
        text: list[str] = []
        calls: list[ToolCall] = []
        for item in body.get("output") or []:
            if item["type"] == "message":
                text += [c["text"] for c in item.get("content") or [] if c["type"] == "output_text"]
            elif item["type"] == "function_call":
                arguments = parse_arguments(item.get("arguments") or "", provider=self.provider, tool=item["name"])
                calls.append(ToolCall(id=item["call_id"], name=item["name"], arguments=arguments))
        return LLMResponse(
            text="".join(text),
            tool_calls=tuple(calls),
            finish_reason=settle_finish_reason(_finish_reason(body), calls),
            usage=_usage(body.get("usage")),
            model=body.get("model"),
            response_id=body.get("id"),
        )

    def stream_decoder(self) -> StreamDecoder:
        return _ResponsesStream(self)

    def failed(self, response: dict[str, Any]) -> LLMError:
        """A response whose status is `failed`: classed by its error code, a server error when it has none."""
        error = response.get("error") or {}
        return self.convert_stream_error({"error": error}, status_hint=500)

    def error_class(self, status: int, body: Any) -> type[LLMError] | None:
        return openai_error_class(body)

    def error_message(self, body: Any) -> str | None:
        if isinstance(body, dict) and body.get("type") == "error":
            return str(body.get("message") or "") or None
        return super().error_message(body)


class _ResponsesStream(StreamDecoder):
    def __init__(self, adapter: OpenAIResponsesAdapter) -> None:
        super().__init__(adapter.provider)
        self.adapter = adapter

    def feed(self, event: SseEvent) -> None:
        data = self.load(event.data)
        kind = data.get("type", event.event)
        if kind in ("response.created", "response.in_progress"):
            self.acc.model, self.acc.response_id = data["response"].get("model"), data["response"].get("id")
        elif kind == "response.output_text.delta":
            self.acc.text(data.get("delta", ""))
        elif kind == "response.output_item.added" and data["item"]["type"] == "function_call":
            item = data["item"]
            self.acc.start_call(item["id"], item["call_id"], item["name"])
            self.acc.call_arguments(item["id"], item.get("arguments") or "")
        elif kind == "response.function_call_arguments.delta":
            self.acc.call_arguments(data["item_id"], data.get("delta", ""))
        elif kind == "response.output_item.done" and data["item"]["type"] == "function_call":
            item = data["item"]
            if item.get("arguments"):
                self.acc.replace_arguments(item["id"], item["arguments"])
            self.acc.end_call(item["id"])
        elif kind in ("response.completed", "response.incomplete"):
            response = data["response"]
            self.acc.usage = _usage(response.get("usage"))
            self.acc.finish_reason = _finish_reason(response)
            self.finished = True
        elif kind == "response.failed":
            raise self.adapter.failed(data["response"])
        elif kind == "error":
            raise self.adapter.convert_stream_error(data, status_hint=500)


def _items(message: Message) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            kind = "output_text" if message.role == "assistant" else "input_text"
            items.append({"role": message.role, "content": [{"type": kind, "text": part.text}]})
        elif isinstance(part, ToolCallPart):
            arguments = json.dumps(part.call.arguments, ensure_ascii=False)
            items.append(
                {"type": "function_call", "call_id": part.call.id, "name": part.call.name, "arguments": arguments}
            )
        elif isinstance(part, ToolResultPart):
            items.append({"type": "function_call_output", "call_id": part.call_id, "output": part.content})
    return items


def _finish_reason(response: dict[str, Any]) -> FinishReason:
    if response.get("status") == "incomplete":
        reason = (response.get("incomplete_details") or {}).get("reason") or ""
        return INCOMPLETE_REASONS.get(reason, "max_tokens")
    return "stop"


def _usage(usage: dict[str, Any] | None) -> TokenUsage:
    usage = usage or {}
    given, produced = usage.get("input_tokens") or 0, usage.get("output_tokens") or 0
    return TokenUsage(
        input_tokens=given, output_tokens=produced, total_tokens=usage.get("total_tokens") or given + produced
    )
