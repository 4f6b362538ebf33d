"""What a parity test compares: the text, tool calls and token usage a client ended up with for one fixture.

`expected.json` in each fixture directory maps a fixture's stem to the outcome its wire bytes encode, written by
hand from the provider's documentation; both this project's client and the official SDK are held to it.
"""

import json
from dataclasses import dataclass
from typing import Any

from tests.llm.loopback import FIXTURES


@dataclass(frozen=True)
class ToolCallOutcome:
    """One tool call a client ended up with."""

    id: str | None
    """None where the protocol has no call id (Gemini without `functionCall.id`)."""
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    """The text, tool calls and token usage a client ended up with for one fixture."""

    text: str
    tool_calls: tuple[ToolCallOutcome, ...]
    input_tokens: int
    output_tokens: int
    total_tokens: int


def expected_outcome(protocol: str, stem: str) -> Outcome:
    document = json.loads((FIXTURES / protocol / "expected.json").read_text())[stem]
    return Outcome(
        text=document["text"],
        tool_calls=tuple(ToolCallOutcome(c["id"], c["name"], c["arguments"]) for c in document["tool_calls"]),
        input_tokens=document["usage"]["input"],
        output_tokens=document["usage"]["output"],
        total_tokens=document["usage"]["total"],
    )
