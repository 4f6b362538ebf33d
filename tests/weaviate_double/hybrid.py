"""The keyword side of Search: bm25 alone, and hybrid as a Weaviate 1.35 server runs it (read from its source): a
vector list (skipped when alpha is 0; score 1 - distance) and a keyword list (skipped when alpha is 1 or the query
is empty), each the best max(100, limit) of the filtered objects, fused with relativeScoreFusion (the default: each
list's scores min-max normalized (all equal: 1), times its weight, summed) or rankedFusion (weight / (60 + rank),
summed); the weights are alpha for the vector list and 1 - alpha for the keyword list. With `max_vector_distance`
the vector list stops at the first object beyond it, and the keyword list keeps only objects the vector list kept."""

from typing import Any

import grpc
from weaviate.proto.v1 import base_search_pb2

from tests.weaviate_double import bm25 as keyword
from tests.weaviate_double import vectors
from tests.weaviate_double.errors import WeaviateError, not_implemented
from tests.weaviate_double.storage import StoredObject
from tests.weaviate_double.vectors import Hit
from tests.weaviate_double.wire import floats32

Hybrid = base_search_pb2.Hybrid
RANK_CONSTANT = 60
SUBSEARCH_LIMIT = 100  # QUERY_HYBRID_MAXIMUM_RESULTS: each list holds max(this, limit)


def bm25(
    definition: dict[str, Any], universe: list[StoredObject], objects: list[StoredObject], query: base_search_pb2.BM25
) -> list[Hit]:
    operator = query.search_operator if query.HasField("search_operator") else None
    return keyword.search(definition, universe, objects, query.query, list(query.properties), operator)


def _vector_hits(definition: dict[str, Any], objects: list[StoredObject], query: Hybrid) -> list[Hit]:
    if query.HasField("near_text"):
        raise not_implemented("hybrid with near_text (no vectorizer)")
    names = list(query.targets.target_vectors) if query.HasField("targets") else list(query.target_vectors)
    if query.HasField("near_vector"):
        hits = vectors.near_vector(definition, objects, query.near_vector)  # its own threshold, if it has one
    else:
        if query.vector_bytes:
            vector = floats32(query.vector_bytes)
        elif query.vectors:
            vector = vectors.single(query.vectors)
        elif query.vector:
            vector = list(query.vector)
        else:
            raise WeaviateError(
                "explorer: get class: vectorize search vector: no vectorizer configured for the class, "
                "and no vector was given for the hybrid search",
                grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
            )
        hits = vectors.ranked(objects, vectors.target(definition, names), vector)
    return [Hit(hit.obj, distance=hit.distance, score=1 - (hit.distance or 0.0)) for hit in hits]


Fused = dict[str, list[Any]]  # uuid -> [object, score, explain lines, secondary sort value]


def _relative(hits: list[Hit], weight: float, label: str, fused: Fused) -> None:
    if not hits:
        return
    scores = [hit.score or 0.0 for hit in hits]
    low, high = min(scores), max(scores)
    for hit, score in zip(hits, scores, strict=True):
        weighted = weight if high == low else weight * (score - low) / (high - low)
        entry = fused.setdefault(hit.obj.uuid, [hit.obj, 0.0, [], 0.0])
        entry[1] += weighted
        entry[2].append(
            f"Hybrid (Result Set {label}) Document {hit.obj.uuid}: original score {score}, normalized score: {weighted}"
        )
        entry[3] = score


def _ranked(hits: list[Hit], weight: float, label: str, fused: Fused) -> None:
    for rank, hit in enumerate(hits):
        contributed = weight / (RANK_CONSTANT + rank)
        entry = fused.setdefault(hit.obj.uuid, [hit.obj, 0.0, [], 0.0])
        entry[1] += contributed
        entry[2].append(f"Hybrid (Result Set {label}) Document {hit.obj.uuid} contributed {contributed} to the score")
        entry[3] = hit.score or 0.0


def hybrid(
    definition: dict[str, Any], universe: list[StoredObject], objects: list[StoredObject], query: Hybrid, limit: int
) -> list[Hit]:
    """The fused hits, best first (ties: the later list's own score, then the uuid); `limit` is the request's."""
    alpha = query.alpha_param if query.use_alpha_param else query.alpha
    if not 0 <= alpha <= 1:
        raise WeaviateError(f"alpha must be between 0 and 1, got {alpha}", grpc_code=grpc.StatusCode.INVALID_ARGUMENT)
    depth = max(SUBSEARCH_LIMIT, limit)
    dense: list[Hit] = []
    within: set[str] | None = None
    if alpha > 0:
        dense = _vector_hits(definition, objects, query)[:depth]
        if query.HasField("vector_distance"):
            cut = next((i for i, hit in enumerate(dense) if (hit.distance or 0.0) > query.vector_distance), len(dense))
            dense = dense[:cut]
            within = {hit.obj.uuid for hit in dense}
    sparse: list[Hit] = []
    if alpha < 1 and query.query:
        operator = query.bm25_search_operator if query.HasField("bm25_search_operator") else None
        sparse = keyword.search(definition, universe, objects, query.query, list(query.properties), operator)[:depth]
        if within is not None:
            sparse = [hit for hit in sparse if hit.obj.uuid in within]
    fuse = _ranked if query.fusion_type == Hybrid.FUSION_TYPE_RANKED else _relative
    fused: Fused = {}
    fuse(dense, alpha, "vector,nearVector" if query.HasField("near_vector") else "vector,hybridVector", fused)
    fuse(sparse, 1 - alpha, "keyword,bm25", fused)
    ranked = sorted(fused.values(), key=lambda entry: (-round(entry[1], 7), -entry[3], entry[0].uuid))
    return [Hit(obj, score=score, explain="\n".join(explain)) for obj, score, explain, _ in ranked]
