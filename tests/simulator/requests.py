"""What a request to the simulator asks for, read from either chat protocol's body: the conversation as plain
text, the JSON schema it wants (from `response_format`, or the one `llm.json_output.json_instructions` writes into
the prompt), the tools it offers, whether a tool result is already in the conversation, its output limit and
whether it streams. An image request (`openai_images`) is its prompt, as the user's message."""

import json
from dataclasses import dataclass
from typing import Any, Literal

from tests.simulator.text import Language, language_of

Protocol = Literal["openai_chat", "anthropic", "openai_images"]
"""The chat protocols, and OpenAI Images (`tests/simulator/images.py` answers it; `_openai_images` reads it)."""
SCHEMA_MARKER = "It must match this JSON Schema:"
"""The words `json_instructions` puts right before the schema it embeds."""


@dataclass(frozen=True)
class Tool:
    """A tool the request offers: its name and the JSON Schema of its arguments."""

    name: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class SimRequest:
    """One request, protocol aside."""

    protocol: Protocol
    model: str
    system: str
    messages: tuple[tuple[str, str], ...]
    """(role, text) in order; a tool result's role is `tool` in both protocols."""
    schema: dict[str, Any] | None
    schema_source: Literal["response_format", "prompt"] | None
    json_object: bool
    """`response_format: {"type": "json_object"}` without a schema."""
    tools: tuple[Tool, ...]
    max_tokens: int | None
    stream: bool

    @property
    def has_tool_result(self) -> bool:
        return any(role == "tool" for role, _ in self.messages)

    @property
    def last_user_text(self) -> str:
        return next((text for role, text in reversed(self.messages) if role == "user"), "")

    @property
    def language(self) -> Language:
        """The language of what the user wrote (the system prompt's when the user wrote nothing with letters)."""
        users = " ".join(text for role, text in self.messages if role == "user")
        return language_of(users) if users.strip() else language_of(self.system)


def parse_request(protocol: Protocol, body: dict[str, Any]) -> SimRequest:
    if protocol == "openai_chat":
        return _openai_chat(body)
    if protocol == "openai_images":
        return _openai_images(body)
    return _anthropic(body)


def _openai_chat(body: dict[str, Any]) -> SimRequest:
    system_parts: list[str] = []
    messages: list[tuple[str, str]] = []
    for message in body.get("messages") or []:
        text = _text(message.get("content"))
        if message.get("role") in ("system", "developer"):
            system_parts.append(text)
        else:
            messages.append((message.get("role", "user"), text))
    system = "\n".join(system_parts)
    schema: dict[str, Any] | None = None
    source: Literal["response_format", "prompt"] | None = None
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        schema, source = response_format["json_schema"]["schema"], "response_format"
    elif (embedded := _embedded_schema(system, messages)) is not None:
        schema, source = embedded, "prompt"
    tools = tuple(
        Tool(t["function"]["name"], t["function"].get("parameters") or {"type": "object", "properties": {}})
        for t in body.get("tools") or []
        if t.get("type") == "function"
    )
    return SimRequest(
        protocol="openai_chat",
        model=body.get("model", ""),
        system=system,
        messages=tuple(messages),
        schema=schema,
        schema_source=source,
        json_object=response_format.get("type") == "json_object",
        tools=tools,
        max_tokens=body.get("max_completion_tokens") or body.get("max_tokens"),
        stream=bool(body.get("stream")),
    )


def _openai_images(body: dict[str, Any]) -> SimRequest:
    """An image request: its prompt as the user's message."""
    return SimRequest(
        protocol="openai_images",
        model=str(body.get("model") or ""),
        system="",
        messages=(("user", str(body.get("prompt") or "")),),
        schema=None,
        schema_source=None,
        json_object=False,
        tools=(),
        max_tokens=None,
        stream=False,
    )


def _anthropic(body: dict[str, Any]) -> SimRequest:
    system = _text(body.get("system"))
    messages: list[tuple[str, str]] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        results = [b for b in blocks if b.get("type") == "tool_result"]
        messages += [("tool", _text(b.get("content"))) for b in results]
        text = _text([b for b in blocks if b.get("type") == "text"])
        if text or not results:
            messages.append((message.get("role", "user"), text))
    schema = _embedded_schema(system, messages)
    return SimRequest(
        protocol="anthropic",
        model=body.get("model", ""),
        system=system,
        messages=tuple(messages),
        schema=schema,
        schema_source="prompt" if schema is not None else None,
        json_object=False,
        tools=tuple(Tool(t["name"], t.get("input_schema") or {}) for t in body.get("tools") or [] if "name" in t),
        max_tokens=body.get("max_tokens"),
        stream=bool(body.get("stream")),
    )


def _text(content: Any) -> str:
    """A message's content as text: a string, or the text of its content parts/blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def _embedded_schema(system: str, messages: list[tuple[str, str]]) -> dict[str, Any] | None:
    """The schema `json_instructions` wrote into the system prompt or a message, if any (the last one wins)."""
    for text in (*[t for _, t in reversed(messages)], system):
        marker = text.rfind(SCHEMA_MARKER)
        if marker >= 0:
            rest = text[marker + len(SCHEMA_MARKER) :].lstrip()
            try:
                schema, _ = json.JSONDecoder().raw_decode(rest)
            except json.JSONDecodeError:
                continue
            if isinstance(schema, dict):
                return schema
    return None
