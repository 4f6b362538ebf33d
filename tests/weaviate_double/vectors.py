"""Vector search: the query vector and target of a NearVector (or of a hybrid's vector part), cosine distance
(1 - cosine similarity, what Weaviate reports with `distance: cosine`), certainty (1 - distance/2), and the
distance/certainty thresholds."""

import math
from dataclasses import dataclass
from typing import Any

import grpc
from weaviate.proto.v1 import base_pb2, base_search_pb2

from tests.weaviate_double import schema
from tests.weaviate_double.errors import WeaviateError, not_implemented
from tests.weaviate_double.storage import StoredObject
from tests.weaviate_double.wire import floats32


@dataclass(frozen=True)
class Hit:
    """One result of a search with what it scored (None where the search kind does not give it)."""

    obj: StoredObject
    distance: float | None = None
    score: float | None = None
    explain: str | None = None


def cosine_distance(a: list[float], b: list[float]) -> float:
    if len(a) != len(b):
        raise WeaviateError(
            f"vector search: knn search: distance between entrypoint and query node: vector lengths don't match: "
            f"{len(b)} vs {len(a)}",
            grpc_code=grpc.StatusCode.UNKNOWN,
        )
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    if norm == 0:
        return 1.0
    return 1.0 - sum(x * y for x, y in zip(a, b, strict=True)) / norm


def target(definition: dict[str, Any], names: list[str]) -> str:
    """The vector a search runs on: the named one, or the collection's only one."""
    stored = schema.vector_names(definition)
    if len(names) > 1:
        raise not_implemented("multi-target vector search")
    if names:
        if names[0] not in stored:
            raise WeaviateError(
                f"target vector {names[0]!r} does not exist in class {definition['class']!r}",
                grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
            )
        return names[0]
    if len(stored) > 1:
        raise WeaviateError(
            f"class {definition['class']} has multiple vectors, but no target vectors were provided",
            grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
        )
    return stored[0]


def single(vectors: Any) -> list[float]:
    if len(vectors) != 1 or vectors[0].type == base_pb2.Vectors.VECTOR_TYPE_MULTI_FP32:
        raise not_implemented("multi-vector queries")
    return floats32(vectors[0].vector_bytes)


def query_vector(definition: dict[str, Any], near: base_search_pb2.NearVector) -> tuple[str, list[float]]:
    """The target vector name and the query vector of a NearVector."""
    names = list(near.targets.target_vectors) if near.HasField("targets") else list(near.target_vectors)
    if near.vector_for_targets:
        if len(near.vector_for_targets) != 1:
            raise not_implemented("multi-target vector search")
        one = near.vector_for_targets[0]
        vector = floats32(one.vector_bytes) if one.vector_bytes else single(one.vectors)
        return target(definition, [one.name]), vector
    if near.vector_per_target:
        raise not_implemented("vector_per_target")
    if near.vector_bytes:
        vector = floats32(near.vector_bytes)
    elif near.vectors:
        vector = single(near.vectors)
    elif near.vector:
        vector = list(near.vector)
    else:
        raise WeaviateError("near vector: no vector given", grpc_code=grpc.StatusCode.INVALID_ARGUMENT)
    return target(definition, names), vector


def ranked(objects: list[StoredObject], name: str, vector: list[float]) -> list[Hit]:
    """Every object that has this vector, nearest first."""
    hits = [Hit(obj, distance=cosine_distance(obj.vectors[name], vector)) for obj in objects if name in obj.vectors]
    return sorted(hits, key=lambda hit: hit.distance or 0.0)


def near_vector(definition: dict[str, Any], objects: list[StoredObject], near: base_search_pb2.NearVector) -> list[Hit]:
    """A near_vector search: nearest first, within the distance or certainty threshold if one is given."""
    name, vector = query_vector(definition, near)
    hits = ranked(objects, name, vector)
    if near.HasField("distance"):
        hits = [hit for hit in hits if (hit.distance or 0.0) <= near.distance]
    if near.HasField("certainty"):
        hits = [hit for hit in hits if 1 - (hit.distance or 0.0) / 2 >= near.certainty]
    return hits
