"""What every wire adapter provides (seed 003 §5), and the accumulator its stream decoder feeds.

An adapter owns one protocol's wire format: it builds the HTTP body, parses a whole response, decodes SSE
events, and maps error bodies onto `llm.errors`. It knows nothing about keys, base URLs or retries: those belong
to the provider (`llm.providers`) and the client.
"""

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from llm.errors import LLMError, MalformedResponseError, error_for_status
from llm.reasoning import ThinkFilter
from llm.retry import retry_after_from_headers
from llm.sse import SseEvent
from llm.types import (
    FinishReason,
    LLMRequest,
    LLMResponse,
    StreamEvent,
    TextDelta,
    Thinking,
    TokenUsage,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)

JsonMode = Literal["json_schema", "json_object", "none"]
"""How a provider is asked for JSON: a schema it enforces, 'some JSON object', or only by instructions."""


@dataclass(frozen=True)
class HttpCall:
    """One request an adapter wants sent: path, JSON body and query parameters; the provider adds URL and auth."""

    path: str
    """Appended to the provider's base URL."""
    body: dict[str, Any]
    params: dict[str, str] = field(default_factory=dict)


def alternating(turns: list[dict[str, Any]], *, role: str = "role", content: str = "content") -> list[dict[str, Any]]:
    """Wire turns with consecutive turns of one role merged into one (their content lists joined), for the
    protocols that require user and assistant turns to alternate (Anthropic, Gemini): two assistant messages in a
    row, or tool results followed by a user message, would otherwise be refused."""
    merged: list[dict[str, Any]] = []
    for turn in turns:
        if merged and merged[-1][role] == turn[role]:
            merged[-1] = {**merged[-1], content: [*merged[-1][content], *turn[content]]}
        else:
            merged.append(turn)
    return merged


def present(**fields: Any) -> dict[str, Any]:
    """The fields that have a value: optional request settings are left out of a body rather than sent as null."""
    return {name: value for name, value in fields.items() if value is not None}


def parse_arguments(raw: str, *, provider: str, tool: str) -> dict[str, Any]:
    """A tool call's argument JSON; empty means no arguments (`{}`), anything but an object is malformed."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as err:
        raise MalformedResponseError(
            f"arguments of tool {tool!r} are not JSON: {err}", provider=provider, body=raw
        ) from err
    if not isinstance(value, dict):
        raise MalformedResponseError(f"arguments of tool {tool!r} are not an object", provider=provider, body=raw)
    return value


def call_arguments(raw: str, *, provider: str, tool: str, finish_reason: FinishReason) -> ToolCall | dict[str, Any]:
    """A tool call's arguments (`parse_arguments`); when the answer was cut at the output limit and they do not
    parse, a `ToolCall` stand-in whose `arguments_error` says so (the caller fills in id and name), so the model
    can be told rather than the turn failing."""
    try:
        return parse_arguments(raw, provider=provider, tool=tool)
    except MalformedResponseError as err:
        if finish_reason != "max_tokens":
            raise
        error = f"the arguments of {tool} were cut at the output limit after {len(raw)} characters ({err.message})"
        return ToolCall(id="", name=tool, arguments_error=error)


def read_call(
    call_id: str, name: str, raw: str, *, provider: str, finish_reason: FinishReason, signature: str | None = None
) -> ToolCall:
    """The `ToolCall` for a call's raw argument JSON (see `call_arguments`)."""
    arguments = call_arguments(raw, provider=provider, tool=name, finish_reason=finish_reason)
    if isinstance(arguments, ToolCall):
        return arguments.model_copy(update={"id": call_id, "signature": signature})
    return ToolCall(id=call_id, name=name, arguments=arguments, signature=signature)


def settle_finish_reason(reason: FinishReason, tool_calls: tuple[ToolCall, ...] | list[ToolCall]) -> FinishReason:
    """Some protocols (Gemini) say STOP when the turn ends in tool calls; the client always says tool_use."""
    return "tool_use" if tool_calls and reason == "stop" else reason


@dataclass
class _OpenCall:
    id: str
    name: str
    signature: str | None
    arguments: list[str] = field(default_factory=list)
    ended: bool = False


@dataclass
class StreamAccumulator:
    """Collects a stream's text, tool calls (keyed however the protocol identifies them) and usage, and queues
    the normalized events for the client to hand out."""

    provider: str
    text_parts: list[str] = field(default_factory=list)
    calls: dict[str | int, _OpenCall] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)
    finish_reason: FinishReason | None = None
    model: str | None = None
    response_id: str | None = None
    pending: list[StreamEvent] = field(default_factory=list)
    think: ThinkFilter = field(default_factory=ThinkFilter)
    """Keeps `<think>` blocks out of the text, even when their tags arrive split across deltas."""

    def text(self, delta: str) -> None:
        visible = self.think.feed(delta)
        self._visible(visible)
        if len(visible) < len(delta) and self.think.inside:
            self.thinking()

    def thinking(self) -> None:
        """The model sent reasoning: dropped, only a `Thinking` event says it is at work."""
        self.pending.append(Thinking())

    def _visible(self, text: str) -> None:
        if text:
            self.text_parts.append(text)
            self.pending.append(TextDelta(text=text))

    def start_call(self, key: str | int, call_id: str, name: str, signature: str | None = None) -> None:
        self.calls[key] = _OpenCall(id=call_id, name=name, signature=signature)
        self.pending.append(ToolCallStart(id=call_id, name=name))

    def has_call(self, key: str | int) -> bool:
        return key in self.calls

    def call_arguments(self, key: str | int, fragment: str) -> None:
        call = self._call(key)
        if fragment:
            call.arguments.append(fragment)
            self.pending.append(ToolCallDelta(id=call.id, arguments_delta=fragment))

    def replace_arguments(self, key: str | int, arguments: str) -> None:
        """The protocol sent the complete arguments at the end; they win over the fragments."""
        self._call(key).arguments = [arguments]

    def end_call(self, key: str | int) -> None:
        call = self._call(key)
        if not call.ended:
            call.ended = True
            self.pending.append(ToolCallEnd(id=call.id))

    def drain(self) -> list[StreamEvent]:
        events, self.pending = self.pending, []
        return events

    def response(self) -> LLMResponse:
        """The final response; ends any call the protocol never closed explicitly (Chat Completions)."""
        self._visible(self.think.finish())
        for key in self.calls:
            self.end_call(key)
        reason = self.finish_reason or "stop"
        tool_calls = tuple(
            read_call(
                c.id, c.name, "".join(c.arguments), provider=self.provider, finish_reason=reason, signature=c.signature
            )
            for c in self.calls.values()
        )
        return LLMResponse(
            text="".join(self.text_parts),
            tool_calls=tool_calls,
            finish_reason=settle_finish_reason(reason, tool_calls),
            usage=self.usage,
            model=self.model,
            response_id=self.response_id,
        )

    def _call(self, key: str | int) -> _OpenCall:
        try:
            return self.calls[key]
        except KeyError:
            raise MalformedResponseError(
                f"stream refers to an unknown tool call {key!r}", provider=self.provider
            ) from None


class StreamDecoder(ABC):
    """Turns one response's SSE events into accumulator calls; raises typed errors for error events."""

    needs_end_marker: ClassVar[bool] = True
    """False where the protocol has no end marker and the stream just ends (Gemini)."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.acc = StreamAccumulator(provider)
        self.finished = False

    @abstractmethod
    def feed(self, event: SseEvent) -> None: ...

    def complete(self) -> bool:
        """Whether the stream may end here: its end marker arrived, or (no marker) it said why it finished."""
        return self.finished or (not self.needs_end_marker and self.acc.finish_reason is not None)

    def load(self, data: str) -> Any:
        try:
            return json.loads(data)
        except json.JSONDecodeError as err:
            raise MalformedResponseError(f"stream event is not JSON: {err}", provider=self.provider, body=data) from err


class WireAdapter(ABC):
    """One wire protocol: builds request bodies, parses answers and streams, maps error bodies onto `llm.errors`."""

    protocol: ClassVar[str]

    def __init__(self, provider: str, *, json_mode: JsonMode) -> None:
        self.provider = provider
        self.json_mode = json_mode

    @abstractmethod
    def build_request(self, request: LLMRequest, model: str, *, stream: bool) -> HttpCall: ...

    @abstractmethod
    def parse_response(self, body: Any) -> LLMResponse: ...

    @abstractmethod
    def stream_decoder(self) -> StreamDecoder: ...

    def convert_error(self, status: int, headers: Mapping[str, str], body: Any) -> LLMError:
        """An HTTP error answer as a typed error; adapters refine the class from the body (quota vs rate limit)."""
        cls = self.error_class(status, body) or error_for_status(status)
        return cls(
            self.error_message(body) or f"HTTP {status}",
            provider=self.provider,
            status=status,
            body=body,
            headers=headers,
            retry_after=_first_known(retry_after_from_headers(headers), self.retry_after(body)),
        )

    def convert_stream_error(self, body: Any, *, status_hint: int) -> LLMError:
        """An error event inside a 200 stream; `status_hint` stands in for the status the event implies."""
        cls = self.error_class(status_hint, body) or error_for_status(status_hint)
        message = self.error_message(body) or "no message"
        return cls(
            f"error event mid-stream: {message}", provider=self.provider, body=body, retry_after=self.retry_after(body)
        )

    def error_class(self, status: int, body: Any) -> type[LLMError] | None:
        return None

    def error_message(self, body: Any) -> str | None:
        if isinstance(body, dict) and isinstance(error := body.get("error"), dict):
            message = error.get("message")
            return str(message) if message else None
        return None

    def retry_after(self, body: Any) -> float | None:
        return None


def _first_known(*values: float | None) -> float | None:
    return next((v for v in values if v is not None), None)
