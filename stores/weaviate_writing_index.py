"""The writing family's hybrid search on Weaviate (`VECTOR_STORE=weaviate`): the `ProjectSearch` of
`stores.writing_index` over one collection every gateway and worker shares, with the same passages
(`stores.writing_passages`), the same item-level updates and Weaviate's own hybrid search.

Collection. One collection (`WritingPassage`) holds every project's passages; each object carries its project's
key as a filterable property and every query filters on it. Not multi-tenancy: a tenant per project would need
creating (and deleting) tenants as projects come and go, while a project's few thousand passages filter cheaply
(and the test double serves no tenants). An object's uuid is derived from its project and its passage id
(`kind:ref_id:offset`), so writing a passage again replaces it and two processes writing the same revision write
the same objects.

Updates. What the index holds is compared with the documents item by item, as the LanceDB index does: an item
whose hash changed (or a new one) is cut and embedded again, a deleted item's passages go, and a chapter that only
moved keeps its objects (their vectors and text as stored) with its new position. New and moved objects are
written first and stale ones deleted after, so a reader never sees an item without passages. The revision a
project's passages hold (with the index format) is a record in Weaviate (`MetaRecords`), not a file (an embedder
of another version has the collection created again, and every project is indexed again at its next search): another
process, on another host, searching that revision loads nothing. Threads of one process queue on a lock per
project; processes do not share a lock (Weaviate has none): two that update the same project at once write the
same objects when they read the same documents, and the next revision repairs a rarer race where an update
from older documents lands after one from newer ones.

Full text. Weaviate's `trigram` tokenization makes no gram of a two-character name ("黛玉"), `gse` segments by
dictionary like LanceDB's `icu` (and misses names it splits otherwise) and must be enabled on the server, and
`word` keeps a run of Chinese as one token. So each passage has a `grams` property holding the 2- and 3-grams of its
title and text (`search_grams`: lower-cased, ASCII-folded, separated by spaces) with `whitespace` tokenization and
no stop words, and a query is turned into the same grams: the same matches as LanceDB's `ngram` FTS, on any
Weaviate server.

Ranking. Weaviate's hybrid query fuses BM25 over the grams with the cosine to our query vector by reciprocal rank
(`rankedFusion`: a list weighs w / (60 + rank), rank from 0, w = alpha for the vectors and 1 - alpha for BM25). Alpha
is 0.45, not 0.5: the full text leads by a little, so a passage naming what the request names comes before one the
vectors alone put first (for "黛玉", 贾宝玉's description reaches cosine 0.21 on the shared 玉; LanceDB ranks the
two equal and breaks the tie by passage id). A passage's score is twice Weaviate's, so it reads on the LanceDB
index's scale (sum of 1 / (60 + rank), about 2/60 at best). `matched_by` is computed here: "text" when the
passage shares a gram with the query (BM25 found it), "vector" when its cosine to the query is at least
`VECTOR_FLOOR`; a passage with neither (found only as the vectors' nearest noise) is dropped, as in LanceDB. Not
`max_vector_distance`: Weaviate drops the objects beyond it from the BM25 list too (weaviate/weaviate#10350, and
the double does the same), which would lose a two-character name's text matches (cosine about 0.2). The favour
bonus is added as in LanceDB.
"""

import logging
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Self, cast

import numpy as np
import weaviate
from weaviate.classes.data import DataObject
from weaviate.classes.query import Filter, FilterReturn, HybridFusion, MetadataQuery
from weaviate.collections import Collection
from weaviate.util import generate_uuid5

from models.writing.context import IndexDocument, Passage
from stores.embedder import HashingEmbedder
from stores.weaviate_client import MetaRecords, Objects, ensure_vector_collection, insert_objects
from stores.weaviate_schemas import create_passage_collection
from stores.writing_passages import (
    FAVOUR_BONUS,
    MIN_CANDIDATES,
    RRF_K,
    VECTOR_FLOOR,
    DocumentLoader,
    IndexUpdate,
    document_hash,
    fold,
    item_key,
    passage_records,
    project_key,
    search_grams,
)

log = logging.getLogger(__name__)

COLLECTION = "WritingPassage"
INDEX_FORMAT = "weaviate-passages-v1;grams-2-3"
"""Bump whenever passages or the grams change: a project indexed in another format is indexed again."""
PAGE = 1000
"""Objects read per request when listing a project's passages."""
MAX_PASSAGES = 10_000
"""A project's passages one listing reaches (Weaviate's default QUERY_MAXIMUM_RESULTS caps offset + limit)."""

_HYBRID_ALPHA = 0.45
_RETURNED = ["passage_id", "kind", "ref_id", "title", "chapter_position", "start", "text"]
_LISTED = ["item_key", "content_hash", "chapter_position"]
_STORED = ["project", "passage_id", "item_key", "content_hash", *_RETURNED[1:], "grams"]
_Source = Literal["text", "vector"]


@dataclass(frozen=True)
class _Row:
    """One stored passage as an update compares it: its object's uuid, item, hash and position."""

    uuid: str
    item: str
    content_hash: str
    position: int | None


class WeaviateProjectIndex:
    """Every project's passages in one Weaviate collection, searched by Weaviate's hybrid query."""

    def __init__(
        self, client: weaviate.WeaviateClient, collection: Collection, records: MetaRecords, embedder: HashingEmbedder
    ) -> None:
        self._client = client
        self._collection = collection
        self._records = records
        self._embedder = embedder
        self._format = f"{INDEX_FORMAT};{embedder.version}"
        self._revisions: dict[str, int] = {}
        """project key -> the newest revision this process saw indexed."""
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @classmethod
    def open(
        cls, client: weaviate.WeaviateClient, embedder: HashingEmbedder | None = None, *, prefix: str = ""
    ) -> Self:
        """Over `client` (closed by `close`), the collection created if missing; `prefix` starts the collections'
        names (tests keep theirs apart on one server)."""
        name = prefix + COLLECTION
        try:
            records = MetaRecords(client, prefix)
            embedder = embedder or HashingEmbedder()
            collection = ensure_vector_collection(
                client, records, name, embedder.version, lambda: create_passage_collection(client, name)
            )
        except BaseException:
            client.close()
            raise
        return cls(client, collection, records, embedder)

    def close(self) -> None:
        self._client.close()

    def search(
        self,
        project_id: str,
        revision: int,
        documents: DocumentLoader,
        query: str,
        *,
        limit: int = 6,
        favour: Sequence[str] = (),
    ) -> list[Passage]:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        key = project_key(project_id)
        self._up_to_date(key, revision, documents)
        return self._ranked(key, query, limit, favour)

    def refresh(self, project_id: str, revision: int, documents: DocumentLoader) -> IndexUpdate:
        """Brings the project's passages up to `revision` and says what that took (see the module docstring)."""
        return self._up_to_date(project_key(project_id), revision, documents)

    def remove_project(self, project_id: str) -> list[str]:
        """Deletes the project's passages and its revision record; what went, for the log."""
        key = project_key(project_id)
        with self._lock(key):
            deleted = 0
            while True:
                result = self._collection.data.delete_many(where=_project(key))
                deleted += result.successful
                if result.matches == 0 or result.successful == 0:
                    break
            self._records.delete(_revision_record(key))
            with self._guard:
                self._revisions.pop(key, None)
        return [f"{self._collection.name}: {deleted} passages of {key}"]

    # indexing

    def _lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def _up_to_date(self, key: str, revision: int, documents: DocumentLoader) -> IndexUpdate:
        if self._revisions.get(key, -1) >= revision:
            return IndexUpdate()
        with self._lock(key):
            if self._revisions.get(key, -1) >= revision:  # another thread of this process indexed it meanwhile
                return IndexUpdate()
            stored = self._stored_revision(key)
            if stored is not None and stored >= revision:  # another process indexed it
                update = IndexUpdate()
            else:
                update = self._apply(key, documents(), built=stored is None)
                self._records.put(_revision_record(key), f"{revision};{self._format}")
            with self._guard:
                self._revisions[key] = max(revision, self._revisions.get(key, -1))
        return update

    def _stored_revision(self, key: str) -> int | None:
        """The revision the project's passages hold; None: none indexed yet, or in another format."""
        record = self._records.get(_revision_record(key))
        if record is None:
            return None
        revision, _, stored_format = record.partition(";")
        return int(revision) if stored_format == self._format else None

    def _apply(self, key: str, documents: list[IndexDocument], *, built: bool) -> IndexUpdate:
        """Writes the items that changed or moved, then deletes what is stale; `built`: every item is written."""
        started = time.perf_counter()
        rows = self._rows(key)
        indexed = {row.item: (row.content_hash, row.position) for row in rows}
        current = {item_key(document): document for document in documents}
        changed = {
            item: document
            for item, document in current.items()
            if built or indexed.get(item, ("", None))[0] != document_hash(document)
        }
        positions = {
            item: document.chapter_position
            for item, document in current.items()
            if item in indexed and item not in changed and indexed[item][1] != document.chapter_position
        }
        fresh = self._objects(key, changed.values())
        written = {str(obj.uuid) for obj in fresh}
        moved = self._moved(key, [row for row in rows if row.item in positions], positions)
        insert_objects(self._collection, fresh + moved)
        stale = [
            row.uuid for row in rows if row.item not in current or (row.item in changed and row.uuid not in written)
        ]
        self._delete(stale)
        fresh_items = {str(obj.properties["item_key"]) for obj in fresh}
        rewritten = changed.keys() & (indexed.keys() | fresh_items)
        update = IndexUpdate(
            built=built,
            reindexed=frozenset(fresh_items if built else rewritten),
            moved=frozenset(positions),
            removed=frozenset(indexed.keys() - current.keys()),
            rows_written=len(fresh) + len(moved),
        )
        if update.rows_written or stale:
            log.info(
                "indexed %s in %s: %d items reindexed, %d moved, %d removed, %d objects written in %.2f s",
                key,
                self._collection.name,
                len(update.reindexed),
                len(update.moved),
                len(update.removed),
                update.rows_written,
                time.perf_counter() - started,
            )
        return update

    def _rows(self, key: str) -> list[_Row]:
        rows: list[_Row] = []
        while True:
            if len(rows) + PAGE > MAX_PASSAGES:
                raise RuntimeError(f"project {key}: more than {MAX_PASSAGES - PAGE} passages to list")
            page = self._collection.query.fetch_objects(
                filters=_project(key), limit=PAGE, offset=len(rows), return_properties=_LISTED
            )
            rows.extend(
                _Row(
                    str(obj.uuid), str(obj.properties["item_key"]), str(obj.properties["content_hash"]), _position(obj)
                )
                for obj in page.objects
            )
            if len(page.objects) < PAGE:
                return rows

    def _objects(self, key: str, documents: Iterable[IndexDocument]) -> Objects:
        records = [record for document in documents for record in passage_records(document)]
        vectors = self._embedder.embed([record["search_text"] for record in records])
        objects: Objects = []
        for record, vector in zip(records, vectors, strict=True):
            properties: dict[str, Any] = {name: record[name] for name in _STORED[1:-1]}
            properties.update(project=key, grams=" ".join(search_grams(record["search_text"])))
            uuid = _uuid(key, record["passage_id"])
            objects.append(DataObject(properties=properties, uuid=uuid, vector=vector.tolist()))
        return objects

    def _moved(self, key: str, rows: list[_Row], positions: dict[str, int | None]) -> Objects:
        """The objects of `rows` as stored (text and vector untouched), with their items' new positions."""
        if not rows:
            return []
        found = self._collection.query.fetch_objects(
            filters=Filter.by_id().contains_any([row.uuid for row in rows]),
            limit=len(rows),
            return_properties=_STORED,
            include_vector=True,
        )
        objects: Objects = []
        for obj in found.objects:
            properties = dict(obj.properties)
            properties["chapter_position"] = positions[str(properties["item_key"])]
            vector = cast(list[float], obj.vector["default"])
            objects.append(DataObject(properties=properties, uuid=obj.uuid, vector=vector))
        return objects

    def _delete(self, uuids: list[str]) -> None:
        for start in range(0, len(uuids), PAGE):
            self._collection.data.delete_many(where=Filter.by_id().contains_any(uuids[start : start + PAGE]))

    # searching

    def _ranked(self, key: str, query: str, limit: int, favour: Sequence[str]) -> list[Passage]:
        grams = search_grams(query)
        vector = self._embedder.embed([query])[0]
        hits = self._hits(key, grams, vector, max(MIN_CANDIDATES, 4 * limit))
        if not hits:
            return []
        query_grams = set(grams)
        names = [name.casefold() for name in favour if name.strip()]
        candidates = []
        for hit in hits:
            text = f"{hit['title']}\n{hit['text']}"
            folded = fold(text)
            matched_by: list[_Source] = []
            if any(gram in folded for gram in query_grams):
                matched_by.append("text")
            if float(np.dot(hit["_vector"], vector)) >= VECTOR_FLOOR:  # stored rows are L2-normalised
                matched_by.append("vector")
            if not matched_by:  # the vectors' nearest noise, dropped as in LanceDB
                continue
            bonus = FAVOUR_BONUS if any(name in text.casefold() for name in names) else 0.0
            candidates.append(_Candidate(hit, hit["_score"] + bonus, matched_by))
        candidates.sort(key=lambda candidate: (-candidate.score, candidate.row["passage_id"]))
        return [candidate.passage() for candidate in candidates[:limit]]

    def _hits(self, key: str, grams: list[str], vector: np.ndarray[Any, Any], depth: int) -> list[dict[str, Any]]:
        """The passages the query finds, best first, each with its fused score (`_score`, on the RRF scale) and its
        vector."""
        filters = _project(key)
        query = self._collection.query
        if grams and vector.any():
            found = query.hybrid(
                " ".join(grams),
                vector=vector.tolist(),
                query_properties=["grams"],
                alpha=_HYBRID_ALPHA,
                fusion_type=HybridFusion.RANKED,
                limit=depth,
                filters=filters,
                return_properties=_RETURNED,
                return_metadata=MetadataQuery(score=True),
                include_vector=True,
            )
            return [_hit(obj, 2 * (obj.metadata.score or 0.0)) for obj in found.objects]
        if grams:
            found = query.bm25(
                " ".join(grams),
                query_properties=["grams"],
                limit=depth,
                filters=filters,
                return_properties=_RETURNED,
                include_vector=True,
            )
        elif vector.any():
            found = query.near_vector(
                vector.tolist(),
                distance=1.0 - VECTOR_FLOOR,
                limit=depth,
                filters=filters,
                return_properties=_RETURNED,
                include_vector=True,
            )
        else:
            return []
        return [_hit(obj, 1.0 / (RRF_K + rank)) for rank, obj in enumerate(found.objects, start=1)]


@dataclass
class _Candidate:
    """A passage the hybrid query found, with its score (the favour bonus included) and what matched it."""

    row: dict[str, Any]
    score: float
    matched_by: list[_Source] = field(default_factory=list)

    def passage(self) -> Passage:
        row = self.row
        return Passage(
            kind=row["kind"],
            ref_id=row["ref_id"],
            title=row["title"],
            text=row["text"],
            chapter_position=row.get("chapter_position"),
            start=row["start"],
            score=self.score,
            matched_by=self.matched_by,
        )


def _hit(obj: Any, score: float) -> dict[str, Any]:
    """A found object's properties with its score (`_score`) and its stored vector (`_vector`)."""
    return {**obj.properties, "_score": score, "_vector": obj.vector["default"]}


def _project(key: str) -> FilterReturn:
    return Filter.by_property("project").equal(key)


def _uuid(key: str, passage_id: str) -> str:
    return generate_uuid5(f"{key}/{passage_id}")


def _revision_record(key: str) -> str:
    return f"writing-revision/{key}"


def _position(obj: Any) -> int | None:
    position = obj.properties.get("chapter_position")
    return None if position is None else int(position)
