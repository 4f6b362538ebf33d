"""Getting a validated pydantic model out of a chat answer: the instructions that ask for it, finding the JSON in
an answer that wraps it in prose, a code fence or `<think>` reasoning, and the repair prompt that says exactly
what was wrong.

Finding the JSON: `<think>…</think>` blocks are dropped first (`llm.reasoning`); then the candidates are, in
order, the body of every code fence, then every JSON value `json.JSONDecoder.raw_decode` reads from each `{` or
`[` of the text (so prose before, a note after, braces in either, do not matter); a candidate with a trailing
comma (`[1, 2,]`, `{"a": 1,}`) is read with the comma dropped. `parse_model` keeps the first candidate that
validates; when none does it raises pydantic's `ValidationError`: the errors of the first object that decoded, or
one `json_invalid` error, "no JSON object found", when there is none.
"""

import json
import re
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import InitErrorDetails

from llm.reasoning import strip_reasoning

SchemaT = TypeVar("SchemaT", bound=BaseModel)

FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


NOT_FOUND = "no JSON object found"


def json_instructions(schema: dict[str, Any]) -> str:
    return (
        "Answer with a single JSON object and nothing else (no prose, no code fence). "
        f"It must match this JSON Schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )


def repair_prompt(error: ValidationError) -> str:
    """What the repair round tells the model: the validation errors, or that there was no JSON object."""
    problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in error.errors())
    return f"That answer is not valid: {problems}. Reply again with only the corrected JSON object."


def parse_model(schema: type[SchemaT], answer: str) -> SchemaT:
    """The first JSON value in `answer` that validates as `schema`; raises pydantic's `ValidationError` (of the
    first object found, else the first value, else "no JSON object found") when none does."""
    first_error: ValidationError | None = None
    first_is_object = False
    for candidate in json_candidates(answer):
        try:
            return schema.model_validate_json(json.dumps(candidate))
        except ValidationError as err:
            if first_error is None or (isinstance(candidate, dict) and not first_is_object):
                first_error, first_is_object = err, isinstance(candidate, dict)
    if first_error is not None:
        raise first_error
    missing = InitErrorDetails(type="json_invalid", loc=(), input=answer, ctx={"error": NOT_FOUND})
    raise ValidationError.from_exception_data(schema.__name__, [missing])


def extract_json(answer: str) -> str:
    """The first JSON object (or array) in `answer`, as JSON text; the stripped answer when there is none (so a
    validator reports what it got)."""
    for candidate in json_candidates(answer):
        if isinstance(candidate, dict | list):
            return json.dumps(candidate, ensure_ascii=False)
    return strip_reasoning(answer).strip()


def json_candidates(answer: str) -> Iterator[Any]:
    """Every JSON object or array in `answer`, fenced ones first, in the order they appear."""
    text = strip_reasoning(answer)
    for fenced in FENCE.finditer(text):
        yield from _values(fenced.group(1))
    yield from _values(text)


def _values(text: str) -> Iterator[Any]:
    """The values decoded from each `{` / `[` of `text` (one decoded value's own inner braces are skipped)."""
    position = 0
    while (start := _next_opening(text, position)) >= 0:
        value, end = _decode_at(text, start)
        if end is None:
            position = start + 1
            continue
        yield value
        position = end


def _next_opening(text: str, position: int) -> int:
    found = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
    return min(found) if found else -1


def _decode_at(text: str, start: int) -> tuple[Any, int | None]:
    try:
        value, end = _DECODER.raw_decode(text, start)
        return value, end
    except json.JSONDecodeError:
        pass
    repaired = _without_trailing_commas(text, start)
    if repaired is None:
        return None, None
    try:
        value, _ = _DECODER.raw_decode(repaired[0])
    except json.JSONDecodeError:
        return None, None
    return value, repaired[1]


def _without_trailing_commas(text: str, start: int) -> tuple[str, int] | None:
    """The bracketed value starting at `start` with every comma that directly precedes a `}` or `]` removed, and
    where it ends in `text`; None when its brackets never balance or no comma was removed."""
    out: list[str] = []
    depth, in_string, escaped, removed = 0, False, False, False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char in "}]":
            last = len(out) - 1
            while last >= 0 and out[last].isspace():
                last -= 1
            if last >= 0 and out[last] == ",":
                del out[last]
                removed = True
            depth -= 1
        elif char in "{[":
            depth += 1
        elif char == '"':
            in_string = True
        out.append(char)
        if depth == 0:
            return ("".join(out), index + 1) if removed else None
    return None
