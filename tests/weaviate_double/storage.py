"""The double's state: collections (their completed definitions) and their objects, behind one lock so the REST and
gRPC threads see one consistent store. Values are checked and converted to the property's declared data type on the
way in, as Weaviate does (no auto-schema: an undeclared property is refused)."""

import threading
import time
import uuid as uuid_lib
from dataclasses import dataclass, field
from typing import Any

import grpc

from tests.weaviate_double import schema
from tests.weaviate_double.errors import WeaviateError

Vectors = dict[str, list[float]]


@dataclass(frozen=True)
class StoredObject:
    """One object as stored; replaced whole, never changed in place."""

    uuid: str
    properties: dict[str, Any]
    vectors: Vectors
    doc_id: int
    created_ms: int
    updated_ms: int


@dataclass
class Collection:
    """A collection: its definition, its objects by uuid (in doc id order), and each vector's dimension."""

    definition: dict[str, Any]
    objects: dict[str, StoredObject] = field(default_factory=dict)
    dimensions: dict[str, int] = field(default_factory=dict)


def canonical_uuid(value: Any) -> str:
    """The lower-case hyphenated form of a UUID; refuses anything else as Weaviate does."""
    try:
        return str(uuid_lib.UUID(str(value)))
    except ValueError:
        raise WeaviateError(f"invalid UUID {value!r}", grpc_code=grpc.StatusCode.INVALID_ARGUMENT) from None


def missing_collection(name: str) -> WeaviateError:
    return WeaviateError(f"could not find class {name} in schema", http_status=422, grpc_code=grpc.StatusCode.NOT_FOUND)


_KINDS = {"text": "text", "int": "integer", "number": "number", "boolean": "boolean", "uuid": "uuid"}


def _scalar(data_type: str, value: Any, prop: str, collection: str, array: bool = False) -> Any:
    def refuse(kind: str) -> WeaviateError:
        article = "an" if kind[0] in "aeiu" else "a"
        where = f"invalid {kind}{' array' if array else ''} property '{prop}' on class '{collection}'"
        return WeaviateError(f"{where}: not {article} {kind}, but {type(value).__name__}")

    if data_type == "text":
        if not isinstance(value, str):
            raise refuse("text")
        return value
    if data_type == "int":
        if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
            raise refuse("integer")
        return int(value)
    if data_type == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise refuse("number")
        return float(value)
    if data_type == "boolean":
        if not isinstance(value, bool):
            raise refuse("boolean")
        return value
    if not isinstance(value, str):
        raise refuse("uuid")
    return canonical_uuid(value)


def coerce_properties(definition: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The properties as stored: each converted to its declared type; None leaves the property out."""
    collection = definition["class"]
    out: dict[str, Any] = {}
    for name, value in given.items():
        prop = schema.property_of(definition, name)
        if prop is None:
            raise WeaviateError(
                f"no such prop with name '{name}' found in class '{collection}' in the schema. "
                "Check your schema files for which properties in this class are available"
            )
        if value is None:
            continue
        data_type: str = prop["dataType"][0]
        if data_type.endswith("[]"):
            if not isinstance(value, list):
                kind = _KINDS[data_type[:-2]]
                raise WeaviateError(
                    f"invalid {kind} array property '{name}' on class '{collection}': "
                    f"not {'an' if kind[0] in 'aeiu' else 'a'} {kind} array, but {type(value).__name__}"
                )
            out[prop["name"]] = [_scalar(data_type[:-2], item, name, collection, array=True) for item in value]
        else:
            out[prop["name"]] = _scalar(data_type, value, name, collection)
    return out


class Store:
    """Every collection and object of one double; all access goes through the lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._collections: dict[str, Collection] = {}
        self._next_doc_id = 0

    def create_collection(self, request: dict[str, Any]) -> dict[str, Any]:
        definition = schema.complete(request)
        name = definition["class"]
        with self._lock:
            if name in self._collections:
                raise WeaviateError(f"class name {name} already exists")
            similar = next((n for n in self._collections if n.lower() == name.lower()), None)
            if similar:
                raise WeaviateError(f'class already exists: found similar class "{similar}"')
            self._collections[name] = Collection(definition)
        return definition

    def definition(self, name: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._collections.get(schema.class_name(name))
            return found.definition if found else None

    def definitions(self) -> list[dict[str, Any]]:
        with self._lock:
            return [c.definition for c in self._collections.values()]

    def delete_collection(self, name: str) -> None:
        with self._lock:
            self._collections.pop(schema.class_name(name), None)

    def _collection(self, name: str) -> Collection:
        found = self._collections.get(schema.class_name(name))
        if found is None:
            raise missing_collection(name)
        return found

    def require(self, name: str) -> dict[str, Any]:
        """The collection's definition; raises Weaviate's error for a missing collection."""
        with self._lock:
            return self._collection(name).definition

    def _named_vectors(self, coll: Collection, given: Vectors) -> Vectors:
        names = schema.vector_names(coll.definition)
        out: Vectors = {}
        for name, vector in given.items():
            if name == schema.LEGACY_VECTOR and len(names) == 1:
                name = names[0]
            if name not in names:
                raise WeaviateError(
                    f"collection {coll.definition['class']} does not have a vector named {name or 'default'!r}"
                )
            known = coll.dimensions.get(name)
            if known is not None and known != len(vector) and coll.objects:
                raise WeaviateError(
                    f"new node has a vector with length {len(vector)}. Existing nodes have vectors with length {known}"
                )
            out[name] = [float(x) for x in vector]
        return out

    def put(
        self, collection: str, uuid: str, properties: dict[str, Any], vectors: Vectors, *, replace: bool
    ) -> StoredObject:
        """Stores an object; an existing uuid is replaced when `replace`, else refused (REST POST /v1/objects)."""
        with self._lock:
            coll = self._collection(collection)
            props = coerce_properties(coll.definition, properties)
            vecs = self._named_vectors(coll, vectors)
            key = canonical_uuid(uuid)
            before = coll.objects.get(key)
            if before is not None and not replace:
                raise WeaviateError(f"id '{key}' already exists")
            now = int(time.time() * 1000)
            self._next_doc_id += 1
            stored = StoredObject(key, props, vecs, self._next_doc_id, before.created_ms if before else now, now)
            coll.objects.pop(key, None)
            coll.objects[key] = stored
            for name, vector in vecs.items():
                coll.dimensions[name] = len(vector)
            return stored

    def delete(self, collection: str, uuids: list[str]) -> int:
        """Deletes these objects; how many existed."""
        with self._lock:
            coll = self._collection(collection)
            return sum(coll.objects.pop(canonical_uuid(u), None) is not None for u in uuids)

    def get(self, collection: str, uuid: str) -> StoredObject | None:
        with self._lock:
            return self._collection(collection).objects.get(canonical_uuid(uuid))

    def snapshot(self, collection: str) -> tuple[dict[str, Any], list[StoredObject]]:
        """The definition and every object, in storage (doc id) order."""
        with self._lock:
            coll = self._collection(collection)
            return coll.definition, list(coll.objects.values())
