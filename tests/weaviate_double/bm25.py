"""BM25 keyword search as a Weaviate 1.35 server scores it for a new collection (BlockMax WAND, the default; read
from Weaviate's source): each searched property is scored on its own and the scores are summed.

For a property p (weight w from `name^w`) and a query term t of p's tokenization (the query tokenized as p is,
English stopwords dropped for `word`, a repeated term counted once with its repeats as a multiplier):
  score(p, t) = idf(t) * w * f / (f + k1 * (1 - b + b * len(p) / avg(p)))
with f the term's count in the object's p, len(p) the object's token count in p, avg(p) the mean token count of p
over the objects with at least one token in it, idf(t) = ln(1 + (N - n + 0.5) / (n + 0.5)) * repeats, N the
collection's object count and n the objects containing t, averaged over the searched properties of that
tokenization that contain it (filters do not change N or n). k1 and b come from the collection (1.2 and 0.75 by
default). A property counts for an object only if it holds at least `minimum_or_tokens_match` of the terms (And:
all of them). A server's statistics lag behind deletes until compaction; the double's are always exact."""

import math
from collections import Counter
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
        if prop is None or prop["dataType"][0] not in ("text", "text[]") or not prop.get("indexSearchable", True):
            raise WeaviateError(
                f"Searching by property '{name}' requires inverted index. Is `indexSearchable` option of property "
                f"'{name}' enabled? Set it to `true` or leave empty",
                grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
            )
        fields.append(Field(prop["name"], prop["tokenization"], float(boost or 1.0)))
    return fields


def _tokens(obj: StoredObject, field: Field) -> list[str]:
    value = obj.properties.get(field.name)
    items = value if isinstance(value, list) else [] if value is None else [value]
    return [t for item in items for t in tokenize(field.tokenization, item)]


def _query_terms(field: Field, query: str, drop: frozenset[str]) -> Counter[str]:
    tokens = tokenize(field.tokenization, query)
    return Counter(t for t in tokens if field.tokenization != "word" or t not in drop)


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
    wanted = {f.name: _query_terms(f, query, drop) for f in fields}
    if not fields or not any(wanted.values()):
        return []
    tokens = {obj.uuid: {f.name: _tokens(obj, f) for f in fields} for obj in universe}
    average = {}  # per property: the mean token count over the objects with at least one token in it
    for f in fields:
        lengths = [len(doc[f.name]) for doc in tokens.values() if doc[f.name]]
        average[f.name] = sum(lengths) / len(lengths) if lengths else 1.0
    idf: dict[tuple[str, str], float] = {}  # (tokenization, term) -> idf
    for tokenization in {f.tokenization for f in fields}:
        group = [f for f in fields if f.tokenization == tokenization]
        for term, repeats in wanted[group[0].name].items():
            counts = [sum(term in doc[f.name] for doc in tokens.values()) for f in group]
            present = [c for c in counts if c > 0]
            if present:
                n = sum(present) // len(present)
                idf[(tokenization, term)] = math.log(1 + (len(universe) - n + 0.5) / (n + 0.5)) * repeats
    hits = []
    for obj in candidates:
        score, explain, matched = 0.0, [], False
        for f in fields:
            terms = wanted[f.name]
            have = Counter(tokens[obj.uuid][f.name])
            found = [t for t in terms if have[t]]
            minimum = len(terms) if operator is not None and operator.operator == Options.OPERATOR_AND else 1
            if operator is not None and operator.operator == Options.OPERATOR_OR:
                minimum = max(minimum, operator.minimum_or_tokens_match)
            if not found or len(found) < minimum:
                continue
            matched = True
            length = len(tokens[obj.uuid][f.name])
            for term in found:
                frequency = have[term]
                norm = k1 * (1 - b + b * length / average[f.name])
                score += idf[(f.tokenization, term)] * f.boost * frequency / (frequency + norm)
                explain.append(f"BM25F_{term}_frequency:{frequency}, BM25F_{term}_propLength:{length}")
        if matched:
            hits.append(Hit(obj, score=score, explain=", ".join(explain)))
    order = {obj.uuid: i for i, obj in enumerate(candidates)}
    return sorted(hits, key=lambda hit: (-(hit.score or 0.0), order[hit.obj.uuid]))
