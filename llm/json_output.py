"""Getting a validated pydantic model out of a chat answer: the instructions that ask for it, digging the JSON
out of an answer that wraps it in prose or a code fence, and the repair prompt after a failed validation."""

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

SchemaT = TypeVar("SchemaT", bound=BaseModel)


def json_instructions(schema: dict[str, Any]) -> str:
    return (
        "Answer with a single JSON object and nothing else (no prose, no code fence). "
        f"It must match this JSON Schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )


def repair_prompt(error: ValidationError) -> str:
    problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in error.errors())
    return f"That answer is not valid: {problems}. Reply again with only the corrected JSON object."


def parse_model(schema: type[SchemaT], answer: str) -> SchemaT:
    """Validates the JSON object in `answer`; raises pydantic's `ValidationError` when there is none or it is
    wrong."""
    return schema.model_validate_json(extract_json(answer))


def extract_json(answer: str) -> str:
    text = answer.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text
