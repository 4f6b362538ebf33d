"""The simulated model's answer to one request, protocol aside: a tool call when tools are offered and the tool
policy says so, a valid instance of the requested JSON schema (or what a `json_author` writes for it), or prose of
a target length; then the request's content quirk applied to it, and the cut at `max_tokens` a real model makes.

Deterministic: the randomness is seeded by the simulator's seed and the request body, its stream flags and
output limit aside (a streamed and a whole answer to the same request say the same thing, and a lower limit
cuts the same answer shorter).
"""

import hashlib
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from tests.simulator.instances import Sizes, instance
from tests.simulator.quirks import JSON_QUIRKS, TEXT_QUIRKS, Quirk
from tests.simulator.requests import SimRequest, Tool
from tests.simulator.text import Language, count_tokens, prose, tokens

ToolPolicy = Literal["first_turn", "always", "never"]
"""When tools are offered: call one until a tool result is in the conversation, call one every turn, or never."""
Finish = Literal["stop", "tool_calls", "length"]
Kind = Literal["json", "tool_call", "prose", "image"]
UNSEEDED = frozenset({"stream", "stream_options", "max_tokens", "max_completion_tokens"})
"""Request fields that do not change what the model says."""


class ToolAuthor(Protocol):
    """Writes the arguments of a tool's calls the way a model that knows the task would (a project's files for
    `write_file`): one dict per call, or None to leave the tool to the simulator's made-up arguments."""

    def __call__(self, request: SimRequest, tool: Tool) -> list[dict[str, Any]] | None: ...


class JsonAuthor(Protocol):
    """Writes the JSON value of an answer the way a model that knows the task would (a review that fails one
    dimension): the value, or None to leave it to the simulator's made-up instance of the schema."""

    def __call__(self, request: SimRequest) -> Any: ...


@dataclass(frozen=True)
class AnswerStyle:
    """What the simulator writes, apart from quirks and timing."""

    tool_policy: ToolPolicy = "first_turn"
    tool_policies: Mapping[str, ToolPolicy] = field(default_factory=dict)
    """Per tool name, a policy other than `tool_policy` (the first offered tool's entry applies to a request)."""
    prose_tokens: int = 150
    """Length of a prose answer."""
    sizes: Sizes = field(default_factory=Sizes)
    tool_author: ToolAuthor | None = None
    """Who writes a tool call's arguments when it has something to say for the request (None: made up)."""
    json_author: JsonAuthor | None = None
    """Who writes a JSON answer's value when it has something to say for the request (None: made up)."""


ON_TASK = AnswerStyle(tool_policies={"generate_image": "always"}, sizes=Sizes(unit_interval=(0.65, 0.95)))
"""The simulator as a model that does its task: the image agent draws every plan it is asked for (one call per
turn until none is left), and a reviewer scores a post it was shown as passable, as real models mostly do. The
default style calls a tool once and then writes prose, so a content run's image agent leaves plans undrawn and
the run goes on with offline images (`AGENT_DEGRADED`)."""


@dataclass(frozen=True)
class SimToolCall:
    """One tool call of an answer."""

    id: str
    name: str
    arguments: str
    """The arguments as the JSON text the model writes (cut short by truncation)."""


@dataclass(frozen=True)
class Answer:
    """What the simulated model says to one request, before it is put on the wire."""

    kind: Kind
    text: str
    value: Any = None
    """The JSON value a JSON answer carries (as written, before a fence, prose or a comma went around it)."""
    reasoning: str = ""
    """Reasoning sent apart from the content (the `reasoning` quirk)."""
    tool_calls: tuple[SimToolCall, ...] = ()
    finish: Finish = "stop"
    quirk: Quirk | None = None
    """The content quirk it shows (None when the scheduled one did not apply)."""

    @property
    def tokens(self) -> int:
        """Output tokens: content, reasoning and tool arguments."""
        arguments = "".join(c.name + c.arguments for c in self.tool_calls)
        return count_tokens(self.text) + count_tokens(self.reasoning) + count_tokens(arguments)


def request_rng(seed: int, body: dict[str, Any]) -> random.Random:
    """The randomness of one request's answer: seed and body, minus the stream flags and the output limit."""
    key = {k: v for k, v in body.items() if k not in UNSEEDED}
    digest = hashlib.sha256(f"{seed}:{json.dumps(key, sort_keys=True, ensure_ascii=False)}".encode()).hexdigest()
    return random.Random(digest)


def build_answer(request: SimRequest, rng: random.Random, quirk: Quirk | None, style: AnswerStyle) -> Answer:
    """The answer to `request` with `quirk` applied where it can be."""
    language = request.language
    policy = style.tool_policies.get(request.tools[0].name, style.tool_policy) if request.tools else "never"
    calls_tool = policy == "always" or (policy == "first_turn" and not request.has_tool_result)
    if calls_tool:
        answer = _tool_call(request, rng, language, style)
    elif request.schema is not None or request.json_object:
        schema = request.schema or {"type": "object", "properties": {"answer": {"type": "string"}}}
        authored = style.json_author(request) if style.json_author is not None else None
        value = authored if authored is not None else instance(schema, rng, language, style.sizes)
        answer = _json_answer(value, schema, rng, language, quirk)
    else:
        answer = Answer("prose", prose(rng, language, style.prose_tokens))
    if quirk in TEXT_QUIRKS and answer.kind != "tool_call":
        answer = _reasoned(answer, quirk, language)
    limit = request.max_tokens
    if quirk == Quirk.TRUNCATE:
        limit = min(limit or answer.tokens, max(1, answer.tokens // 2))
        answer = replace(answer, quirk=quirk)
    return _cut(answer, limit) if limit is not None and answer.tokens > limit else answer


def _tool_call(request: SimRequest, rng: random.Random, language: Language, style: AnswerStyle) -> Answer:
    """Calls to the first offered tool the author writes for, else one call with made-up arguments to the tool the
    last user message names (the first offered one when it names none)."""
    prefix = "call_" if request.protocol == "openai_chat" else "toolu_"
    authored = _authored(request, style.tool_author)
    if authored is not None:
        name, written = authored
        calls = tuple(
            SimToolCall(f"{prefix}{rng.getrandbits(96):024x}", name, json.dumps(arguments, ensure_ascii=False))
            for arguments in written
        )
        return Answer("tool_call", "", tool_calls=calls, finish="tool_calls")
    asked = request.last_user_text
    tool: Tool = next((t for t in request.tools if t.name in asked), request.tools[0])
    arguments = instance(tool.parameters, rng, language, style.sizes)
    call = SimToolCall(f"{prefix}{rng.getrandbits(96):024x}", tool.name, json.dumps(arguments, ensure_ascii=False))
    return Answer("tool_call", "", tool_calls=(call,), finish="tool_calls")


def _authored(request: SimRequest, author: ToolAuthor | None) -> tuple[str, list[dict[str, Any]]] | None:
    """The first offered tool the author writes calls to, and their arguments."""
    if author is None:
        return None
    for tool in request.tools:
        if written := author(request, tool):
            return tool.name, written
    return None


def _json_answer(
    value: Any, schema: dict[str, Any], rng: random.Random, language: Language, quirk: Quirk | None
) -> Answer:
    applied = quirk if quirk in JSON_QUIRKS else None
    if quirk == Quirk.MISSING_FIELD:
        required = [name for name in schema.get("required", []) if isinstance(value, dict) and name in value]
        if required:
            del value[rng.choice(required)]
        else:
            applied = None
    if quirk == Quirk.WRONG_SCALE and not _rescale(value, schema):
        applied = None
    text = json.dumps(value, ensure_ascii=False, indent=2)
    if applied == Quirk.TRAILING_COMMA and not (isinstance(value, dict | list) and value):
        applied = None
    if applied == Quirk.TRAILING_COMMA:
        text = text[: text.rstrip().rfind("\n")] + ",\n" + text.rstrip()[-1]
    zh = language == "zh"
    if applied == Quirk.FENCE:
        text = f"```json\n{text}\n```"
    elif applied == Quirk.PROSE:
        before = "好的，下面是结果：" if zh else "Sure, here is the result:"
        after = "希望这对你有帮助。" if zh else "I hope this helps."
        text = f"{before}\n\n{text}\n\n{after}"
    elif applied == Quirk.PROSE_BRACES:
        before = "好的，按要求整理如下：" if zh else "Here is what you asked for:"
        note = (
            "注：如果需要，可以把 {标题} 换成你自己的内容。" if zh else "Note: replace {title} with your own if needed."
        )
        text = f"{before}\n\n```json\n{text}\n```\n\n{note}"
    return Answer("json", text, value=value, quirk=applied)


def _rescale(value: Any, schema: dict[str, Any]) -> bool:
    """Writes the first bounded number of the top-level object out of its range (a 0–1 score as 0–100)."""
    properties = schema.get("properties") or {}
    for name, sub in properties.items():
        if sub.get("type") in ("number", "integer") and "maximum" in sub and isinstance(value, dict) and name in value:
            maximum = sub["maximum"]
            value[name] = round(value[name] * 100, 2) if maximum <= 1 else maximum * 10 + 1
            if value[name] <= maximum:  # a 0 score stays 0 when scaled
                value[name] = 100 if maximum <= 1 else maximum * 10 + 1
            return True
    return False


def _reasoned(answer: Answer, quirk: Quirk, language: Language) -> Answer:
    if language == "zh":
        thought = '用户要我按格式回答。先想清楚结构：{"key": "value"} 这样的对象，字段 {name} 要填好，不要遗漏。'
    else:
        thought = 'The user wants the format kept. Plan the shape first: an object like {"key": "value"}, fill {name}.'
    if quirk == Quirk.THINK:
        return replace(answer, text=f"<think>\n{thought}\n</think>\n\n{answer.text}", quirk=quirk)
    return replace(answer, reasoning=thought, quirk=quirk)


def _cut(answer: Answer, limit: int) -> Answer:
    """The answer cut after `limit` output tokens, as a model stops at max_tokens (reasoning counts first)."""
    left = max(0, limit - count_tokens(answer.reasoning))
    if answer.tool_calls:
        call = answer.tool_calls[0]
        cut = SimToolCall(call.id, call.name, "".join(tokens(call.arguments)[:left]))
        return replace(answer, tool_calls=(cut,), finish="length")
    return replace(answer, text="".join(tokens(answer.text)[:left]), finish="length")
