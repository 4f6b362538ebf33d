"""The RAG node's style retrieval on Weaviate (`VECTOR_STORE=weaviate`): the `StyleStore` of `stores.style_store`
with the same rows, vectors, calibrated scores and cache, in a collection every worker shares.

One object per name or alias of each style (`style_id`, `text`), its uuid derived from the build and the row, its
vector ours (`HashingEmbedder`, self-provided), cosine distance. What the collection was built from (the library's
fingerprint and the embedder's version) is a record of `MetaRecords`; a worker that finds another there writes its
rows (same uuids: a second worker doing the same at once writes the same objects), deletes the rows of any other
build, and records its own; an embedder of another version (maybe another dimension, which one vector index cannot
hold) has the collection created again. All of it happens when the store is opened: at the worker's start.
"""

import logging
import time
from collections.abc import Sequence
from typing import Any, Self

import numpy as np
import numpy.typing as npt
import weaviate
from weaviate.classes.data import DataObject
from weaviate.classes.query import Filter, MetadataQuery
from weaviate.collections import Collection
from weaviate.util import generate_uuid5

from stores.embedder import HashingEmbedder
from stores.style_library import StyleEntry, library_fingerprint, load_style_library
from stores.style_search import CachedStyleSearch, Clock
from stores.weaviate_client import MetaRecords, Objects, ensure_vector_collection, insert_objects
from stores.weaviate_schemas import create_style_collection

log = logging.getLogger(__name__)

COLLECTION = "Style"
_BUILD_RECORD = "styles-build"


class WeaviateStyleStore(CachedStyleSearch):
    """Cosine search over the style library's names and aliases in a Weaviate collection."""

    def __init__(
        self,
        client: weaviate.WeaviateClient,
        collection: Collection,
        embedder: HashingEmbedder,
        library: Sequence[StyleEntry],
        *,
        clock: Clock,
    ) -> None:
        super().__init__(embedder, library, clock=clock)
        self._client = client
        self._collection = collection

    @classmethod
    def open(
        cls,
        client: weaviate.WeaviateClient,
        embedder: HashingEmbedder | None = None,
        library: list[StyleEntry] | None = None,
        *,
        clock: Clock = time.monotonic,
        prefix: str = "",
    ) -> Self:
        """Over `client` (closed by `close`): the collection created if missing and rebuilt if it holds another
        build. `prefix` starts the collections' names (tests keep theirs apart on one server)."""
        embedder = embedder or HashingEmbedder()
        library = library if library is not None else load_style_library()
        if not library:
            raise ValueError("the style library is empty")
        name = prefix + COLLECTION
        try:
            records = MetaRecords(client, prefix)
            collection = ensure_vector_collection(
                client, records, name, embedder.version, lambda: create_style_collection(client, name)
            )
            _ensure_build(collection, records, embedder, library)
        except BaseException:
            client.close()
            raise
        return cls(client, collection, embedder, library, clock=clock)

    def close(self) -> None:
        self._client.close()

    def _nearest(self, vector: npt.NDArray[np.float32], rows: int) -> list[tuple[str, float]]:
        found = self._collection.query.near_vector(
            vector.tolist(), limit=rows, return_properties=["style_id"], return_metadata=MetadataQuery(distance=True)
        )
        return [(str(hit.properties["style_id"]), 1.0 - (hit.metadata.distance or 0.0)) for hit in found.objects]


def _ensure_build(
    collection: Collection, records: MetaRecords, embedder: HashingEmbedder, library: Sequence[StyleEntry]
) -> None:
    build = f"{library_fingerprint(library)};{embedder.version}"
    if records.get(_BUILD_RECORD) == build:
        return
    log.info("building style collection %r: %d styles, %s", collection.name, len(library), embedder.version)
    insert_objects(collection, _style_objects(embedder, library, build))
    collection.data.delete_many(where=Filter.by_property("build").not_equal(build))
    records.put(_BUILD_RECORD, build)


def _style_objects(embedder: HashingEmbedder, library: Sequence[StyleEntry], build: str) -> Objects:
    rows = [(entry.id, form) for entry in library for form in entry.surface_forms]
    vectors = embedder.embed([text for _, text in rows])
    objects: Objects = []
    for (style_id, text), vector in zip(rows, vectors, strict=True):
        properties: dict[str, Any] = {"style_id": style_id, "text": text, "build": build}
        uuid = generate_uuid5(f"{build}/{style_id}/{text}")
        objects.append(DataObject(properties=properties, uuid=uuid, vector=vector.tolist()))
    return objects
