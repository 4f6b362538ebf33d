"""A valid instance of a JSON Schema, made up deterministically from a seeded `random.Random`: what the simulator
answers when a request asks for JSON.

Covers what pydantic's `model_json_schema()` emits: objects (every property, required or not), `$defs`/`$ref`,
`anyOf`/`oneOf` (the first non-null choice), `allOf`, `enum`/`const`, arrays of a few items (`minItems`/
`maxItems`, `uniqueItems`, an item for `contains`), strings within `minLength`/`maxLength` (common `format`s; a
`pattern` only when a plain word or slug matches it), numbers within their bounds, maps (`additionalProperties`).
Strings are in the request's language and sized by what the field is called: a `title` is a few words, a
`content` paragraphs.

References, as a model writes them: an object's own id (`id`, or one named after it: an `ImagePlan`'s `planId`)
is not one an earlier object of the answer already has (a patterned one is numbered on, `p1`, `p2`), and a list
of strings named like a reference to siblings (`dependsOn`, `depends_on`, `after`, `requires`) takes some of the
ids of objects completed earlier in the answer (possibly none), never its own or an enclosing object's.
"""

import random
import re
from dataclasses import dataclass
from typing import Any

from tests.simulator.text import Language, fit, phrase, prose

LONG_FIELDS = re.compile(
    r"content|(?<!con)text|body|document|chapter|draft|markdown|code|passage|story|article|essay", re.I
)
SHORT_FIELDS = re.compile(
    r"title|name|label|tag|id$|key|slug|type|kind|status|category|author|role|language|heading|city|place|topic|genre",
    re.I,
)
REFERENCE_FIELDS = re.compile(r"depends_?on|after|requires", re.I)
"""A list named like this refers to sibling objects by id (matched against the whole field name)."""
FORMATS = {
    "date-time": "2026-11-26T08:30:00Z",
    "date": "2026-11-26",
    "time": "08:30:00",
    "email": "writer@example.com",
    "uri": "https://example.com/page",
    "url": "https://example.com/page",
    "uuid": "3f2b8c1e-5d4a-4e7b-9c6d-1a2b3c4d5e6f",
}


@dataclass(frozen=True)
class Sizes:
    """How big made-up values are: tokens of a long text field, of any other text field, and items per array."""

    long_text_tokens: tuple[int, int] = (120, 400)
    text_tokens: tuple[int, int] = (8, 30)
    array_items: tuple[int, int] = (2, 4)
    unit_interval: tuple[float, float] = (0.0, 1.0)
    """Where a number bounded to 0–1 (a score, a share) falls: a model rating work it was shown is seldom harsh."""


def own_id_key(schema: dict[str, Any]) -> str | None:
    """The property that names an object itself: `id`, or one named after the object (an `ImagePlan`'s `planId`
    or `plan_id`; a `LayoutSlot`'s `blockId` names another object)."""
    properties: dict[str, Any] = schema.get("properties") or {}
    if "id" in properties:
        return "id"
    title = re.sub(r"[^a-z]", "", str(schema.get("title", "")).lower())
    for key in properties:
        named = re.fullmatch(r"([a-z]+)(?:Id|_id)", key)
        if named and title.endswith(named.group(1)):
            return key
    return None


def instance(schema: dict[str, Any], rng: random.Random, language: Language, sizes: Sizes = Sizes()) -> Any:
    """A value valid for `schema` (its `$defs` resolve `$ref`s anywhere inside it)."""
    return _Maker(schema.get("$defs") or schema.get("definitions") or {}, rng, language, sizes).make(schema, "")


class _Maker:
    def __init__(self, defs: dict[str, Any], rng: random.Random, language: Language, sizes: Sizes) -> None:
        self.defs, self.rng, self.language, self.sizes = defs, rng, language, sizes
        self.ids: list[str] = []
        """The `id`s of the objects completed so far, in order."""

    def make(self, schema: dict[str, Any], field: str) -> Any:
        schema = self.resolve(schema)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                choices = [self.resolve(s) for s in schema[key]]
                return self.make(next((s for s in choices if s.get("type") != "null"), choices[0]), field)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
        maker = getattr(self, f"_{kind}")
        return maker(schema, field)

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            schema = {**self.defs[name], **{k: v for k, v in schema.items() if k != "$ref"}}
        if "allOf" in schema:
            merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                part = self.resolve(part)
                merged["properties"] = {**merged.get("properties", {}), **part.get("properties", {})}
                merged["required"] = [*merged.get("required", []), *part.get("required", [])]
                merged |= {k: v for k, v in part.items() if k not in ("properties", "required")}
            schema = merged
        return schema

    def _object(self, schema: dict[str, Any], field: str) -> dict[str, Any]:
        properties: dict[str, Any] = schema.get("properties") or {}
        value = {name: self.make(sub, name) for name, sub in properties.items()}
        extra = schema.get("additionalProperties")
        if not properties and isinstance(extra, dict):
            value = {phrase(self.rng, self.language, 1) + str(i): self.make(extra, field) for i in range(2)}
        key = own_id_key(schema)
        if key is not None:
            self._identified(value, key, properties[key])
        return value

    def _identified(self, value: dict[str, Any], key: str, id_schema: dict[str, Any]) -> None:
        """Makes a completed object's string id (`value[key]`) one no earlier object has (a free-form one gets a
        number), and remembers it for later references."""
        made = value.get(key)
        if not isinstance(made, str):
            return
        schema = self.resolve(id_schema)
        free = not any(facet in schema for facet in ("enum", "const", "pattern", "format"))
        number = 2
        while free and made in self.ids:
            suffix = f"-{number}"
            made = value[key][: max(1, schema.get("maxLength", len(made) + len(suffix)) - len(suffix))] + suffix
            number += 1
        if made in self.ids and "pattern" in schema:
            made = self._renumbered(made, schema["pattern"])
        value[key] = made
        self.ids.append(made)

    def _renumbered(self, made: str, pattern: str) -> str:
        """A patterned id no earlier object has, numbered as a model numbers them (`p3` after `p1`, `p2`); `made`
        when no number of 1–999 in place of its digits fits the pattern."""
        if not re.search(r"[0-9]", made):
            return made
        for number in range(1, 1000):
            candidate = re.sub(r"[0-9]+", str(number), made, count=1)
            if candidate not in self.ids and re.search(pattern, candidate):
                return candidate
        return made

    def _references(self, schema: dict[str, Any]) -> list[str]:
        """Some of the ids written so far (possibly none), in the order they were written."""
        high = min(len(self.ids), schema.get("maxItems", self.sizes.array_items[1]))
        count = self.rng.randint(min(schema.get("minItems", 0), high), high)
        chosen = set(self.rng.sample(self.ids, count))
        return [made for made in self.ids if made in chosen]

    def _array(self, schema: dict[str, Any], field: str) -> list[Any]:
        low = max(schema.get("minItems", 0), self.sizes.array_items[0])
        high = min(schema.get("maxItems", self.sizes.array_items[1]), max(low, self.sizes.array_items[1]))
        count = self.rng.randint(min(low, high), high)
        if "prefixItems" in schema:
            return [self.make(s, field) for s in schema["prefixItems"]]
        items = schema.get("items") or {}
        if REFERENCE_FIELDS.fullmatch(field) and self.resolve(items) == {"type": "string"}:
            return self._references(schema)
        values: list[Any] = []
        for _ in range(count * 4):
            if len(values) == count:
                break
            value = self.make(items, field.rstrip("s"))
            if not schema.get("uniqueItems") or value not in values:
                values.append(value)
        return self._containing(values, schema, field)

    def _containing(self, values: list[Any], schema: dict[str, Any], field: str) -> list[Any]:
        """`values` with an item made for the array's `contains` (a `const` or an `enum` already there will do),
        in place of one when the array is full."""
        if "contains" not in schema:
            return values
        wanted = self.resolve(schema["contains"])
        allowed = [wanted["const"]] if "const" in wanted else wanted.get("enum")
        if allowed is not None and any(value in allowed for value in values):
            return values
        item = self.make(wanted, field.rstrip("s"))
        if len(values) >= schema.get("maxItems", len(values) + 1):
            values.pop(self.rng.randrange(len(values)))
        values.insert(self.rng.randint(0, len(values)), item)
        return values

    def _string(self, schema: dict[str, Any], field: str) -> str:
        if schema.get("format") in FORMATS:
            return FORMATS[schema["format"]]
        if "pattern" in schema:
            return self._patterned(schema["pattern"], field)
        if LONG_FIELDS.search(field):
            text = prose(self.rng, self.language, self.rng.randint(*self.sizes.long_text_tokens))
        elif SHORT_FIELDS.search(field):
            text = phrase(self.rng, self.language, self.rng.randint(1, 3))
        else:
            text = prose(self.rng, self.language, self.rng.randint(*self.sizes.text_tokens))
        return fit(text, schema.get("minLength", 1), schema.get("maxLength"), self.rng, self.language)

    def _patterned(self, pattern: str, field: str) -> str:
        digits = re.sub(r"\[0-9\](\{[0-9,]+\}|[+*?])?", str(self.rng.randint(1, 9)), pattern.strip("^$"))
        for candidate in (
            phrase(self.rng, "en", 1),
            "item-1",
            "a",
            "1",
            "A1",
            digits,
            phrase(self.rng, self.language, 2),
        ):
            if re.search(pattern, candidate):
                return candidate
        raise ValueError(f"the simulator cannot make a string matching {pattern!r} (field {field!r})")

    def _integer(self, schema: dict[str, Any], field: str) -> int:
        low, high = self._bounds(schema, 0, 100)
        return self.rng.randint(int(-(-low // 1)), int(high // 1))

    def _number(self, schema: dict[str, Any], field: str) -> float:
        low, high = self._bounds(schema, 0.0, 100.0)
        if (low, high) == (0.0, 1.0):
            low, high = self.sizes.unit_interval
        return round(self.rng.uniform(low, high), 2) if high - low >= 0.02 else low

    def _bounds(self, schema: dict[str, Any], low: float, high: float) -> tuple[float, float]:
        """Inclusive bounds inside the schema's, with exclusive ones moved in; open ends around the other end."""
        lower = schema.get("minimum", schema.get("exclusiveMinimum"))
        upper = schema.get("maximum", schema.get("exclusiveMaximum"))
        step = 1 if schema.get("type") == "integer" else 0.01
        if "exclusiveMinimum" in schema:
            lower = schema["exclusiveMinimum"] + step
        if "exclusiveMaximum" in schema:
            upper = schema["exclusiveMaximum"] - step
        if lower is None and upper is None:
            return low, high
        if lower is None:
            assert upper is not None
            return min(low, upper - (high - low)), upper
        if upper is None:
            return lower, lower + (high - low)
        return lower, upper

    def _boolean(self, schema: dict[str, Any], field: str) -> bool:
        return self.rng.random() < 0.5

    def _null(self, schema: dict[str, Any], field: str) -> None:
        return None
