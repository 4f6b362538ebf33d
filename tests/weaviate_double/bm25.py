"""BM25F keyword search as Weaviate scores it: the query tokenized per property (its declared tokenization, stopwords
dropped), term frequencies and lengths summed over the searched properties (each weighted by its `name^boost`),
idf = ln(1 + (N - n + 0.5) / (n + 0.5)) with N the collection's object count, k1 and b from the collection's
inverted index config (1.2 and 0.75 by default). Operator Or (default, with minimum_or_tokens_match) or And."""

import math
from dataclasses import dataclass
from typing import Any

import grpc
from weaviate.proto.v1 import base_search_pb2

from tests.weaviate_double import schema
from tests.weaviate_double.errors import WeaviateError
from tests.weaviate_double.storage import StoredObject
from tests.weaviate_double.tokens import stopwords, tokenize
from tests.weaviate_double.vectors import Hit

Options = base_search_pb2.SearchOperatorOptions


@dataclass(frozen=True)
class Field:
    """A searched property: its name, tokenization and weight."""

    name: str
    tokenization: str
    boost: float


def _fields(definition: dict[str, Any], names: list[str]) -> list[Field]:
    """The searched properties: those named (with `^boost`), else every searchable text property."""
    if not names:
        return [
            Field(p["name"], p["tokenization"], 1.0)
            for p in definition["properties"]
            if p["dataType"][0] in ("text", "text[]") and p.get("indexSearchable", True)
        ]
    fields = []
    for spec in names:
        name, _, boost = spec.partition("^")
        prop = schema.property_of(definition, name)
        if prop is None or prop["dataType"][0] not in ("text", "text[]"):
            raise WeaviateError(
                f"property '{name}' not found or not a searchable text property in class '{definition['class']}'",
                grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
            )
        fields.append(Field(prop["name"], prop["tokenization"], float(boost or 1.0)))
    return fields


def _tokens(obj: StoredObject, field: Field) -> list[str]:
    value = obj.properties.get(field.name)
    items = value if isinstance(value, list) else [] if value is None else [value]
    return [t for item in items for t in tokenize(field.tokenization, item)]


def search(
    definition: dict[str, Any],
    universe: list[StoredObject],
    candidates: list[StoredObject],
    query: str,
    properties: list[str],
    operator: Options | None,
) -> list[Hit]:
    """`candidates` (the filtered objects) scored against `query`, best first; `universe` is every object (N)."""
    fields = _fields(definition, properties)
    bm25 = definition["invertedIndexConfig"]["bm25"]
    k1, b = float(bm25["k1"]), float(bm25["b"])
    drop = stopwords(definition["invertedIndexConfig"])
    wanted: dict[str, dict[str, int]] = {}  # per field: its query tokens (its tokenization) and their repeats
    for field in fields:
        tokens = [t for t in tokenize(field.tokenization, query) if field.tokenization != "word" or t not in drop]
        wanted[field.name] = {t: tokens.count(t) for t in tokens}
    terms = {t: max(w.get(t, 0) for w in wanted.values()) for w in wanted.values() for t in w}
    if not terms:
        return []
    docs = {obj.uuid: {f.name: _tokens(obj, f) for f in fields} for obj in universe}
    lengths = {uuid: sum(len(doc[f.name]) * f.boost for f in fields) for uuid, doc in docs.items()}
    average = sum(lengths.values()) / len(lengths) if lengths else 0.0
    average = average or 1.0
    total = len(universe)
    idf = {}
    for term in terms:
        n = sum(any(term in wanted[f.name] and term in d[f.name] for f in fields) for d in docs.values())
        idf[term] = math.log(1 + (total - n + 0.5) / (n + 0.5))
    minimum = 1
    if operator is not None and operator.operator == Options.OPERATOR_AND:
        minimum = len(terms)
    elif operator is not None and operator.minimum_or_tokens_match:
        minimum = operator.minimum_or_tokens_match
    hits = []
    for obj in candidates:
        doc = docs[obj.uuid]
        score, matched, explain = 0.0, 0, []
        for term, repeats in terms.items():
            frequency = sum(doc[f.name].count(term) * f.boost for f in fields if term in wanted[f.name])
            if frequency == 0:
                continue
            matched += 1
            norm = k1 * (1 - b + b * lengths[obj.uuid] / average)
            score += repeats * idf[term] * frequency * (k1 + 1) / (frequency + norm)
            explain.append(f"BM25F_{term}_frequency:{frequency}, BM25F_{term}_propLength:{lengths[obj.uuid]}")
        if matched >= minimum and matched > 0:
            hits.append(Hit(obj, score=score, explain=", ".join(explain)))
    order = {obj.uuid: i for i, obj in enumerate(candidates)}
    return sorted(hits, key=lambda hit: (-(hit.score or 0.0), order[hit.obj.uuid]))
