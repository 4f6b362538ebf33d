"""The Search call: which objects a SearchRequest selects (fetch with filters, limit, offset or the `after` cursor;
near_vector; bm25; hybrid), and the SearchReply built from them with the properties and metadata asked for."""

import time
from typing import Any

import grpc
from weaviate.proto.v1 import base_pb2, properties_pb2, search_get_pb2

from tests.weaviate_double import hybrid, schema, vectors
from tests.weaviate_double.errors import WeaviateError, not_implemented
from tests.weaviate_double.filters import predicate
from tests.weaviate_double.storage import Store, StoredObject, canonical_uuid
from tests.weaviate_double.vectors import Hit
from tests.weaviate_double.wire import id_bytes, pack32, property_value

DEFAULT_LIMIT = 10  # QUERY_DEFAULTS_LIMIT
MAXIMUM_RESULTS = 10000  # QUERY_MAXIMUM_RESULTS
_UNSUPPORTED = (
    "group_by",
    "near_object",
    "near_text",
    "near_image",
    "near_audio",
    "near_video",
    "near_depth",
    "near_thermal",
    "near_imu",
    "generative",
    "rerank",
    "boost",
)


def _refuse_unsupported(req: search_get_pb2.SearchRequest) -> None:
    for name in _UNSUPPORTED:
        if req.HasField(name):
            raise not_implemented(f"search with {name}")
    if req.sort_by:
        raise not_implemented("search with sort_by")
    if req.tenant:
        raise not_implemented("multi-tenancy")
    if req.autocut:
        raise not_implemented("autocut")
    if req.HasField("hybrid_search") and req.hybrid_search.HasField("selection"):
        raise not_implemented("hybrid selection")
    if req.HasField("properties") and (req.properties.ref_properties or req.properties.object_properties):
        raise not_implemented("returning references or object properties")


def _fetch(req: search_get_pb2.SearchRequest, objects: list[StoredObject], filtered: bool) -> list[Hit]:
    """A plain fetch: by uuid (the cursor's order) without filters or with `after`, else in doc id order."""
    if req.after:
        conflicts = [name for name, given in (("offset", req.offset > 0), ("where", filtered)) if given]
        if conflicts:
            raise WeaviateError(
                f"cursor api: invalid 'after' parameter: {','.join(conflicts)} cannot be set with after and limit "
                "parameters",
                grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
            )
        after = canonical_uuid(req.after)
        objects = [obj for obj in objects if obj.uuid > after]
    if req.after or not filtered:
        objects = sorted(objects, key=lambda obj: obj.uuid)
    return [Hit(obj) for obj in objects]


def _returned(definition: dict[str, Any], req: search_get_pb2.SearchRequest) -> list[dict[str, Any]]:
    """The declared properties a search returns: all of them unless it names some (an unknown name is refused)."""
    if not req.HasField("properties") or req.properties.return_all_nonref_properties:
        return list(definition["properties"])
    props = []
    for name in req.properties.non_ref_properties:
        prop = schema.property_of(definition, name)
        if prop is None:
            raise WeaviateError(
                f"no such prop with name '{name}' found in class '{definition['class']}' in the schema. "
                "Check your schema files for which properties in this class are available",
                grpc_code=grpc.StatusCode.INVALID_ARGUMENT,
            )
        props.append(prop)
    return props


def _properties(definition: dict[str, Any], props: list[dict[str, Any]], obj: StoredObject) -> Any:
    fields = {
        prop["name"]: property_value(prop["dataType"][0], obj.properties[prop["name"]])
        for prop in props
        if prop["name"] in obj.properties
    }
    return search_get_pb2.PropertiesResult(
        non_ref_props=properties_pb2.Properties(fields=fields), target_collection=definition["class"]
    )


def _metadata(req: search_get_pb2.MetadataRequest, hit: Hit) -> search_get_pb2.MetadataResult:
    obj = hit.obj
    meta = search_get_pb2.MetadataResult(id=obj.uuid, id_as_bytes=id_bytes(obj.uuid))
    if req.vector or req.vectors:
        for name in obj.vectors if req.vector else req.vectors:
            if name not in obj.vectors:
                continue
            if name == schema.LEGACY_VECTOR:
                meta.vector_bytes = pack32(obj.vectors[name])
            else:
                meta.vectors.append(
                    base_pb2.Vectors(
                        name=name,
                        vector_bytes=pack32(obj.vectors[name]),
                        type=base_pb2.Vectors.VECTOR_TYPE_SINGLE_FP32,
                    )
                )
    if req.creation_time_unix:
        meta.creation_time_unix, meta.creation_time_unix_present = obj.created_ms, True
    if req.last_update_time_unix:
        meta.last_update_time_unix, meta.last_update_time_unix_present = obj.updated_ms, True
    if hit.distance is not None:
        if req.distance:
            meta.distance, meta.distance_present = hit.distance, True
        if req.certainty:
            meta.certainty, meta.certainty_present = 1 - hit.distance / 2, True
    if hit.score is not None and req.score:
        meta.score, meta.score_present = hit.score, True
    if hit.explain is not None and req.explain_score:
        meta.explain_score, meta.explain_score_present = hit.explain, True
    return meta


def search(store: Store, req: search_get_pb2.SearchRequest) -> search_get_pb2.SearchReply:
    started = time.monotonic()
    _refuse_unsupported(req)
    definition, universe = store.snapshot(req.collection)
    returned = _returned(definition, req)
    objects = universe
    filtered = req.HasField("filters")
    if filtered:
        keep = predicate(definition, req.filters)
        objects = [obj for obj in objects if keep(obj)]
    limit = req.limit or DEFAULT_LIMIT  # a gRPC search without a limit gets the default, thresholds or not
    if req.HasField("near_vector"):
        hits = vectors.near_vector(definition, objects, req.near_vector)
    elif req.HasField("bm25_search"):
        hits = hybrid.bm25(definition, universe, objects, req.bm25_search)
    elif req.HasField("hybrid_search"):
        hits = hybrid.hybrid(definition, universe, objects, req.hybrid_search, limit)
    else:
        hits = _fetch(req, objects, filtered)
    hits = hits[req.offset : min(req.offset + limit, MAXIMUM_RESULTS)]  # a server caps, never refuses
    results = [
        search_get_pb2.SearchResult(
            properties=_properties(definition, returned, hit.obj), metadata=_metadata(req.metadata, hit)
        )
        for hit in hits
    ]
    return search_get_pb2.SearchReply(took=time.monotonic() - started, results=results)
