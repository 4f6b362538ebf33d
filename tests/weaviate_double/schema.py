"""Collection definitions: a create request (POST /v1/schema) checked and completed with the defaults a Weaviate
server fills in, so GET /v1/schema/{name} answers what a real server would, and the lookups the rest of the double
needs (a property's data type and tokenization, the collection's vector names, its BM25 parameters)."""

import copy
from typing import Any

from tests.weaviate_double.errors import WeaviateError, not_implemented

DATA_TYPES = {"text", "text[]", "int", "int[]", "number", "number[]", "boolean", "boolean[]", "uuid", "uuid[]"}
TOKENIZATIONS = {"word", "whitespace", "lowercase", "field", "trigram"}
LEGACY_VECTOR = ""  # the name a collection's single unnamed vector is stored under

_INVERTED_INDEX = {
    "bm25": {"b": 0.75, "k1": 1.2},
    "cleanupIntervalSeconds": 60,
    "stopwords": {"preset": "en", "additions": None, "removals": None},
    "indexTimestamps": False,
    "indexNullState": False,
    "indexPropertyLength": False,
    "usingBlockMaxWAND": True,
}
_HNSW = {
    "skip": False,
    "cleanupIntervalSeconds": 300,
    "maxConnections": 32,
    "efConstruction": 128,
    "ef": -1,
    "dynamicEfMin": 100,
    "dynamicEfMax": 500,
    "dynamicEfFactor": 8,
    "vectorCacheMaxObjects": 1000000000000,
    "flatSearchCutoff": 40000,
    "distance": "cosine",
    "pq": {
        "enabled": False,
        "bitCompression": False,
        "segments": 0,
        "centroids": 256,
        "trainingLimit": 100000,
        "encoder": {"type": "kmeans", "distribution": "log-normal"},
    },
    "bq": {"enabled": False},
    "sq": {"enabled": False, "trainingLimit": 100000, "rescoreLimit": 20},
    "rq": {"enabled": False, "bits": 8, "rescoreLimit": 20},
    "filterStrategy": "sweeping",
    "multivector": {"enabled": False, "aggregation": "maxSim"},
}
_FLAT = {
    "distance": "cosine",
    "vectorCacheMaxObjects": 1000000000000,
    "pq": {"enabled": False, "rescoreLimit": -1, "cache": False},
    "bq": {"enabled": False, "rescoreLimit": -1, "cache": False},
    "sq": {"enabled": False, "rescoreLimit": -1, "cache": False},
}
_REPLICATION = {"factor": 1, "asyncEnabled": False, "deletionStrategy": "NoAutomatedResolution"}
_SHARDING = {
    "virtualPerPhysical": 128,
    "desiredCount": 1,
    "actualCount": 1,
    "desiredVirtualCount": 128,
    "actualVirtualCount": 128,
    "key": "_id",
    "strategy": "hash",
    "function": "murmur3",
}
_MULTI_TENANCY = {"enabled": False, "autoTenantCreation": False, "autoTenantActivation": False}


def class_name(name: str) -> str:
    """Weaviate's spelling of a collection name: first letter upper-case."""
    return name[:1].upper() + name[1:]


def _merged(defaults: dict[str, Any], given: dict[str, Any] | None) -> dict[str, Any]:
    merged = copy.deepcopy(defaults)
    for key, value in (given or {}).items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged


def _property(prop: dict[str, Any], collection: str) -> dict[str, Any]:
    name = prop.get("name")
    if not isinstance(name, str) or not name:
        raise WeaviateError(f"property in class {collection!r} has no name")
    data_type = prop.get("dataType") or []
    if len(data_type) != 1 or data_type[0] not in DATA_TYPES:
        if data_type and data_type[0][:1].isupper():
            raise not_implemented(f"cross-reference property {name!r}")
        raise not_implemented(f"property {name!r} of data type {data_type}")
    is_text = data_type[0] in ("text", "text[]")
    if prop.get("indexSearchable") and not is_text:
        raise WeaviateError(
            "`indexSearchable` is allowed only for text/text[] data types. "
            "For other data types set false or leave empty"
        )
    out: dict[str, Any] = {
        "name": name[:1].lower() + name[1:],  # a server lower-cases a property name's first letter
        "dataType": list(data_type),
        "indexFilterable": prop.get("indexFilterable", True),
        "indexSearchable": prop.get("indexSearchable", is_text),
        "indexRangeFilters": prop.get("indexRangeFilters", False),
    }
    if prop.get("description"):
        out["description"] = prop["description"]
    tokenization = prop.get("tokenization")
    if is_text:
        tokenization = tokenization or "word"
        if tokenization not in TOKENIZATIONS:
            raise not_implemented(f"tokenization {tokenization!r}")
        out["tokenization"] = tokenization
    elif tokenization:
        raise WeaviateError(f"tokenization is not allowed for data type '{data_type[0]}'")
    if prop.get("nestedProperties") or prop.get("textAnalyzer"):
        raise not_implemented(f"nested properties / text analyzer on {name!r}")
    return out


def _vector_index(index_type: str | None, config: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    index_type = index_type or "hnsw"
    if index_type not in ("hnsw", "flat"):
        raise not_implemented(f"vector index type {index_type!r}")
    full = _merged(_HNSW if index_type == "hnsw" else _FLAT, config)
    if full["distance"] != "cosine":
        raise not_implemented(f"distance {full['distance']!r} (only cosine)")
    return index_type, full


def _vectorizer_is_none(vectorizer: Any) -> bool:
    if vectorizer in (None, "none"):
        return True
    return isinstance(vectorizer, dict) and list(vectorizer) == ["none"]


def complete(request: dict[str, Any]) -> dict[str, Any]:
    """The class definition a server stores for this create request; raises WeaviateError if it is refused."""
    name = request.get("class")
    if not isinstance(name, str) or not name:
        raise WeaviateError("class name is required")
    name = class_name(name)
    if (request.get("multiTenancyConfig") or {}).get("enabled"):
        raise not_implemented("multi-tenancy")
    if request.get("moduleConfig"):
        raise not_implemented("module config (vectorizers, generative, rerankers)")
    properties = [_property(p, name) for p in request.get("properties") or []]
    seen: set[str] = set()
    for prop in properties:
        if prop["name"].lower() in seen:
            raise WeaviateError(
                f'class "{name}": conflict for property "{prop["name"]}": already in use or provided multiple times'
            )
        seen.add(prop["name"].lower())
    out: dict[str, Any] = {"class": name, "properties": properties}
    if request.get("description"):
        out["description"] = request["description"]
    out["invertedIndexConfig"] = _merged(_INVERTED_INDEX, request.get("invertedIndexConfig"))
    out["multiTenancyConfig"] = _merged(_MULTI_TENANCY, request.get("multiTenancyConfig"))
    out["replicationConfig"] = _merged(_REPLICATION, request.get("replicationConfig"))
    out["shardingConfig"] = _merged(_SHARDING, request.get("shardingConfig"))
    named = request.get("vectorConfig")
    if named:
        if request.get("vectorizer") not in (None, "none") or request.get("vectorIndexConfig"):
            raise WeaviateError("creating a class with both a class level vector index and named vectors is forbidden")
        out["vectorConfig"] = {}
        for vector_name, config in named.items():
            if not _vectorizer_is_none(config.get("vectorizer")):
                raise not_implemented(f"vectorizer {config.get('vectorizer')!r} (bring your own vectors only)")
            index_type, index_config = _vector_index(config.get("vectorIndexType"), config.get("vectorIndexConfig"))
            out["vectorConfig"][vector_name] = {
                "vectorizer": {"none": {}},
                "vectorIndexType": index_type,
                "vectorIndexConfig": index_config,
            }
    else:
        if not _vectorizer_is_none(request.get("vectorizer")):
            raise not_implemented(f"vectorizer {request.get('vectorizer')!r} (bring your own vectors only)")
        index_type, index_config = _vector_index(request.get("vectorIndexType"), request.get("vectorIndexConfig"))
        out["vectorizer"] = "none"
        out["vectorIndexType"] = index_type
        out["vectorIndexConfig"] = index_config
    return out


def vector_names(schema: dict[str, Any]) -> list[str]:
    """The names the collection's vectors are stored under (LEGACY_VECTOR for an unnamed one)."""
    return list(schema["vectorConfig"]) if "vectorConfig" in schema else [LEGACY_VECTOR]


def property_of(schema: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A declared property by name (Weaviate matches property names case-insensitively on the first letter)."""
    for prop in schema["properties"]:
        if prop["name"] == name or prop["name"] == name[:1].lower() + name[1:]:
            return prop  # type: ignore[no-any-return]
    return None
