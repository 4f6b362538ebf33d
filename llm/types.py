"""The provider-neutral request, response and stream-event models of the LLM client (seed 003 "请求/响应模型").

A conversation is a list of `Message`s made of parts: text, the model's tool calls, and tool results. Adapters
translate these to and from each provider's wire format; nothing here knows about a provider.
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FinishReason = Literal["stop", "tool_use", "max_tokens", "content_filter"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class ToolDefinition(_Frozen):
    """A tool the model may call: its name, what it does, and the JSON Schema of its arguments."""

    name: str
    description: str
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """A JSON Schema object describing the arguments."""


class ToolCall(_Frozen):
    """A call the model asked the client to run, with its decoded arguments."""

    id: str
    """The id a tool result must reference (Responses: `call_id`; Gemini: its `id`, or one made up here)."""
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    signature: str | None = None
    """Opaque provider state to send back with this call on the next turn (Gemini's `thoughtSignature`)."""
    arguments_error: str | None = None
    """Why the arguments could not be read (the answer was cut at the output limit in the middle of them): the
    call is not run, and the model gets this back as the call's error result."""


class TokenUsage(_Frozen):
    """Tokens of one call, or (added up) of several; input counts cached prompt tokens too."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: "TokenUsage") -> "TokenUsage":
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
        )


class TextPart(_Frozen):
    """Text of a user or assistant turn."""

    kind: Literal["text"] = "text"
    text: str


class ToolCallPart(_Frozen):
    """A tool call the assistant made, kept in its turn for the rest of the conversation."""

    kind: Literal["tool_call"] = "tool_call"
    call: ToolCall


class ToolResultPart(_Frozen):
    """What one tool call returned, sent back in a `tool` turn; `is_error` when the tool failed."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    """The tool's name (Gemini matches results to calls by name)."""
    content: str
    is_error: bool = False


Part = Annotated[TextPart | ToolCallPart | ToolResultPart, Field(discriminator="kind")]


class Message(_Frozen):
    """One turn: `user` (text), `assistant` (text and tool calls) or `tool` (results of the previous calls)."""

    role: Literal["user", "assistant", "tool"]
    parts: tuple[Part, ...]

    @classmethod
    def user(cls, text: str) -> "Message":
        return cls(role="user", parts=(TextPart(text=text),))

    @classmethod
    def assistant(cls, text: str, tool_calls: tuple[ToolCall, ...] = ()) -> "Message":
        parts: list[Part] = [TextPart(text=text)] if text else []
        parts += [ToolCallPart(call=call) for call in tool_calls]
        return cls(role="assistant", parts=tuple(parts))

    @classmethod
    def tool_results(cls, results: list[ToolResultPart]) -> "Message":
        return cls(role="tool", parts=tuple(results))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [p.call for p in self.parts if isinstance(p, ToolCallPart)]


class JsonOutput(_Frozen):
    """Ask for a JSON answer matching `schema` (the provider's JSON mode where it has one)."""

    name: str
    schema_: dict[str, Any] = Field(alias="schema")


class LLMRequest(_Frozen):
    """One call to the model: the conversation, the system prompt, tools and sampling settings."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    messages: tuple[Message, ...]
    system: str = ""
    model: str | None = None
    """None: the provider's configured model."""
    tools: tuple[ToolDefinition, ...] = ()
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    json_output: JsonOutput | None = None


class LLMResponse(_Frozen):
    """The model's answer: its text, the tool calls it asks for, why it stopped, and the tokens used."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: FinishReason = "stop"
    usage: TokenUsage = TokenUsage()
    model: str | None = None
    """The model that answered, as the provider reports it."""
    response_id: str | None = None

    def as_message(self) -> Message:
        """This answer as the assistant turn of a continuing conversation."""
        return Message.assistant(self.text, self.tool_calls)


class TextDelta(_Frozen):
    """Stream event: the next piece of answer text."""

    type: Literal["text_delta"] = "text_delta"
    text: str


class Thinking(_Frozen):
    """Stream event: the model is reasoning (a `<think>` block, `reasoning_content`, a thinking block or thought
    part). The reasoning itself is dropped, never part of the answer; the event only says the model is working."""

    type: Literal["thinking"] = "thinking"


class ToolCallStart(_Frozen):
    """Stream event: the model began a tool call."""

    type: Literal["tool_call_start"] = "tool_call_start"
    id: str
    name: str


class ToolCallDelta(_Frozen):
    """Stream event: the next fragment of a tool call's argument JSON."""

    type: Literal["tool_call_delta"] = "tool_call_delta"
    id: str
    arguments_delta: str


class ToolCallEnd(_Frozen):
    """Stream event: a tool call's arguments are complete."""

    type: Literal["tool_call_end"] = "tool_call_end"
    id: str


class Done(_Frozen):
    """Stream event, always the last: the final response, as `complete` would have returned it."""

    type: Literal["done"] = "done"
    response: LLMResponse


StreamEvent = TextDelta | Thinking | ToolCallStart | ToolCallDelta | ToolCallEnd | Done
