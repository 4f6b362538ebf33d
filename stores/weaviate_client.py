"""The Weaviate connection the vector stores share at scale (`VECTOR_STORE=weaviate`): connecting with the
settings' URL, gRPC port and API key; creating a collection once whichever process gets there first; and
`MetaRecords`, named values kept in a small collection of their own (what the style collection was built from,
the revision each project's passages hold, the embedder version each collection's vectors come from), so no
process relies on a file another process wrote.

Only the `stores.weaviate_*` modules import `weaviate`; `stores.vector_stores` imports them when the setting asks
for Weaviate.
"""

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import weaviate
from weaviate.classes.config import Configure, DataType, Property, Tokenization
from weaviate.classes.data import DataObject
from weaviate.classes.init import Auth
from weaviate.collections import Collection
from weaviate.exceptions import UnexpectedStatusCodeError, WeaviateBaseError, WeaviateInsertManyAllFailedError
from weaviate.util import generate_uuid5

from models.settings import Settings
from stores.vector_errors import VectorStoreConfigError

META_COLLECTION = "VectorStoreMeta"

Objects = list[DataObject[Any, Any]]
"""A batch of objects to write (properties, a uuid and a vector each)."""
BATCH_OBJECTS = 200
"""Objects per gRPC batch request: a passage with its vector and grams is about 12 kB, and a server takes messages
of 10 MB by default (`GRPC_MAX_MESSAGE_SIZE`); one request for a whole book would exceed it."""


def connect_with(settings: Settings) -> weaviate.WeaviateClient:
    """A client connected where the settings say (`WEAVIATE_URL`, `WEAVIATE_GRPC_PORT`, `WEAVIATE_API_KEY`)."""
    api_key = settings.weaviate_api_key.get_secret_value() if settings.weaviate_api_key else None
    return connect(settings.weaviate_url, settings.weaviate_grpc_port, api_key)


def connect(url: str | None, grpc_port: int, api_key: str | None = None) -> weaviate.WeaviateClient:
    """A connected sync client: REST at `url`, gRPC at `grpc_port` on the same host (TLS for both when https);
    `VectorStoreConfigError`, naming the settings, when the URL is not one or no Weaviate answers there."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise VectorStoreConfigError(f"VECTOR_STORE=weaviate needs WEAVIATE_URL=http(s)://host[:port], got {url!r}")
    secure = parts.scheme == "https"
    try:
        return weaviate.connect_to_custom(
            http_host=parts.hostname,
            http_port=parts.port or (443 if secure else 80),
            http_secure=secure,
            grpc_host=parts.hostname,
            grpc_port=grpc_port,
            grpc_secure=secure,
            auth_credentials=Auth.api_key(api_key) if api_key else None,
        )
    except WeaviateBaseError as exc:
        where = f"WEAVIATE_URL={parts.scheme}://{parts.hostname}:{parts.port or ''} and WEAVIATE_GRPC_PORT={grpc_port}"
        raise VectorStoreConfigError(f"no Weaviate answers at {where}: {exc}") from exc


def ensure_collection(client: weaviate.WeaviateClient, name: str, create: Callable[[], object]) -> Collection:
    """The collection `name`, created by `create()` unless it exists (or another process created it meanwhile)."""
    if not client.collections.exists(name):
        try:
            create()
        except UnexpectedStatusCodeError:
            if not client.collections.exists(name):
                raise
    return client.collections.get(name)


def insert_objects(collection: Collection, objects: Objects) -> None:
    """Writes `objects` in batches of `BATCH_OBJECTS` (an object whose uuid exists is replaced); raises on any
    failed object."""
    for start in range(0, len(objects), BATCH_OBJECTS):
        batch = objects[start : start + BATCH_OBJECTS]
        try:
            result = collection.data.insert_many(batch)
        except WeaviateInsertManyAllFailedError as exc:
            raise RuntimeError(f"{collection.name}: writing {len(batch)} objects failed: {exc}") from exc
        if result.has_errors:
            first = next(iter(result.errors.values()))
            raise RuntimeError(
                f"{collection.name}: {len(result.errors)} of {len(batch)} objects failed: {first.message}"
            )


def ensure_vector_collection(
    client: weaviate.WeaviateClient, records: "MetaRecords", name: str, space: str, create: Callable[[], object]
) -> Collection:
    """The collection `name` for vectors of the embedder version `space`: one created for another space (which
    may have another dimension, and Weaviate refuses those in the same index) is deleted and created again."""
    record = f"vector-space/{name}"
    stored = records.get(record)
    if stored is not None and stored != space and client.collections.exists(name):
        client.collections.delete(name)
    collection = ensure_collection(client, name, create)
    if stored != space:
        records.put(record, space)
    return collection


class MetaRecords:
    """Named text values, one object each (its uuid derived from the name) in the collection `META_COLLECTION`."""

    def __init__(self, client: weaviate.WeaviateClient, prefix: str = "") -> None:
        name = prefix + META_COLLECTION
        self._collection = ensure_collection(
            client,
            name,
            lambda: client.collections.create(
                name,
                properties=[
                    Property(name="key", data_type=DataType.TEXT, tokenization=Tokenization.FIELD),
                    Property(name="value", data_type=DataType.TEXT, index_searchable=False, index_filterable=False),
                ],
                vector_config=Configure.Vectors.self_provided(),
            ),
        )

    def get(self, key: str) -> str | None:
        found = self._collection.query.fetch_object_by_id(generate_uuid5(key), return_properties=["value"])
        return None if found is None else str(found.properties["value"])

    def put(self, key: str, value: str) -> None:
        insert_objects(
            self._collection, [DataObject(properties={"key": key, "value": value}, uuid=generate_uuid5(key))]
        )

    def delete(self, key: str) -> None:
        self._collection.data.delete_by_id(generate_uuid5(key))
