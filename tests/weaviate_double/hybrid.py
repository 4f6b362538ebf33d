"""The keyword side of Search: bm25 alone, and hybrid (a BM25F list and a vector list over the same filtered
objects, fused with relativeScoreFusion (the default: each list's scores min-max normalized, then alpha * vector +
(1 - alpha) * keyword) or rankedFusion (the sum of weight / (60 + rank))). The vector list ranks every filtered object
that has the vector (a server ranks its nearest neighbours), within `max_vector_distance` if one is given."""

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
        hits = vectors.near_vector(definition, objects, query.near_vector)
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
    if query.HasField("vector_distance"):
        hits = [hit for hit in hits if (hit.distance or 0.0) <= query.vector_distance]
    return [Hit(hit.obj, distance=hit.distance, score=1 - (hit.distance or 0.0)) for hit in hits]


def _relative(hits: list[Hit], weight: float, label: str, fused: dict[str, list[Any]]) -> None:
    if not hits:
        return
    scores = [hit.score or 0.0 for hit in hits]
    low, high = min(scores), max(scores)
    for hit, score in zip(hits, scores, strict=True):
        normalized = 1.0 if high == low else (score - low) / (high - low)
        entry = fused.setdefault(hit.obj.uuid, [hit.obj, 0.0, []])
        entry[1] += weight * normalized
        entry[2].append(
            f"(Result Set {label}) Document {hit.obj.uuid}: original score {score}, normalized score: {normalized}"
        )


def _ranked(hits: list[Hit], weight: float, label: str, fused: dict[str, list[Any]]) -> None:
    for rank, hit in enumerate(hits):
        entry = fused.setdefault(hit.obj.uuid, [hit.obj, 0.0, []])
        entry[1] += weight / (RANK_CONSTANT + rank)
        entry[2].append(f"(Result Set {label}) Document {hit.obj.uuid} contributed {weight / (RANK_CONSTANT + rank)}")


def hybrid(
    definition: dict[str, Any], universe: list[StoredObject], objects: list[StoredObject], query: Hybrid
) -> list[Hit]:
    alpha = query.alpha_param if query.use_alpha_param else query.alpha
    if not 0 <= alpha <= 1:
        raise WeaviateError(f"alpha must be between 0 and 1, got {alpha}", grpc_code=grpc.StatusCode.INVALID_ARGUMENT)
    operator = query.bm25_search_operator if query.HasField("bm25_search_operator") else None
    sparse = (
        keyword.search(definition, universe, objects, query.query, list(query.properties), operator)
        if alpha < 1 and query.query
        else []
    )
    dense = _vector_hits(definition, objects, query) if alpha > 0 else []
    fuse = _ranked if query.fusion_type == Hybrid.FUSION_TYPE_RANKED else _relative
    fused: dict[str, list[Any]] = {}
    fuse(sparse, 1 - alpha, "keyword,bm25", fused)
    fuse(dense, alpha, "vector,hybridVector", fused)
    order = {obj.uuid: i for i, obj in enumerate(objects)}
    hits = [Hit(obj, score=score, explain="\n".join(explain)) for obj, score, explain in fused.values()]
    return sorted(hits, key=lambda hit: (-(hit.score or 0.0), order[hit.obj.uuid]))
