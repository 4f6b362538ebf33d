"""Hybrid retrieval over one writer's project (seed 002 Req 2, `HybridSearchService`): a `ProjectSearch` protocol
and its embedded-LanceDB index, full text and vectors fused by reciprocal rank.

Indexing. A project's index is one table (`writing_<project>_passages`), kept up to date item by item. Each
row carries its item's key (`kind:ref_id`) and a hash of the item's title and text. A search for a revision
newer than the table's takes the project's lock (an `flock` on a file under `.locks/`, so threads and the
gateway and worker processes all queue on it), looks again, and only then loads the documents and compares them
with the table: an item whose hash changed (or a new one) is cut and embedded again, a deleted item's rows go,
and a chapter that only moved (a reorder, an insert before it) keeps its rows with its new position, so no
passage text changes. All of it is one `merge_insert` commit, so a reader sees the table before or after the
update, never half of it. Rows added since the FTS index was built are searched by a flat scan until
`OPTIMIZE_AFTER_ROWS` of them pile up; then `optimize` folds them into the index. The revision the table holds is
written (after the commit) to `.locks/<project>.revision`, so another process's search of that revision loads
nothing; a per-process cache remembers it as well, so searching an unchanged project touches neither the
document store nor the lock. A table built in another format is dropped and built again from every document,
and so is one another process dropped meanwhile (the search retries once).

Passages (`stores.writing_passages`, shared with the Weaviate index). A chapter is cut at paragraph and sentence
ends into passages of about 300-600 characters; any other document is one passage. Both the FTS and the vector
see the document's title with the passage, so a character's description is found by the character's name.

Full text. LanceDB's native FTS (not tantivy) with the `ngram` tokenizer, 2- and 3-grams, lower-cased, no
stemming or stop words, ASCII folding. Measured on Chinese and English text (lancedb 0.40): the `simple`
tokenizer finds no Chinese substring (a run of Chinese is one token); `icu` segments by dictionary and so misses
names it splits otherwise ("黛玉" in "林黛玉", "宝玉哭"); 1-grams match every passage that shares a common
character. 2-grams find any Chinese substring of two or more characters and still match English words, case
and accents aside ("Dragon", "run" in "running", "cafe" in "café"); 3-grams rank the whole word above its
scattered pieces ("dragon": "the dragon slept" over "drag on, gone", which 2-grams alone put first). The grams
run across spaces and punctuation, which only adds a few tokens. A one-character query finds nothing by full
text; the vectors still can.

Ranking. Each list (BM25 over n-grams; cosine over `HashingEmbedder` rows) is ranked on its own, and a passage
scores the sum of 1 / (60 + rank) over the lists that found it. A passage only the vectors found is dropped
when its cosine is under `VECTOR_FLOOR`: any two Chinese texts share common characters, and in a generated
project of 50 chapters x 5000 characters unrelated passages reach cosines of 0.16-0.2 ("帮我写第三章",
"继续写"; "黛玉" against 贾宝玉's description), while a passage sharing a name or a phrase with the request is
found by the full text as well. A passage naming something the request mentions (`favour`, in its
text or its document's title) gains half of a first rank's score: enough to lift it past passages found about
as well, not past clearly better ones.
"""

import fcntl
import logging
import os
import re
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Self, cast

import lancedb
import pyarrow as pa
from lancedb.index import FTS
from lancedb.query import LanceVectorQueryBuilder
from lancedb.table import Table

from models.writing.context import IndexDocument, Passage
from stores.embedder import HashingEmbedder
from stores.writing_passages import (
    FAVOUR_BONUS,
    MIN_CANDIDATES,
    RRF_K,
    VECTOR_FLOOR,
    DocumentLoader,
    IndexUpdate,
    document_hash,
    item_key,
    passage_records,
    project_key,
)

log = logging.getLogger(__name__)

LOCK_TIMEOUT_SECONDS = 30.0
_LOCK_POLL_SECONDS = 0.02

_FTS_CONFIG = FTS(
    base_tokenizer="ngram",
    ngram_min_length=2,
    ngram_max_length=3,
    lower_case=True,
    stem=False,
    remove_stop_words=False,
    ascii_folding=True,
)
OPTIMIZE_AFTER_ROWS = 512
"""Rows outside the FTS index (added by updates) past which an update folds them in (`optimize`: about 1 s on a
1 000 000-character book); until then a search scans them (about 0.2 ms a row, so 0.1 s at most)."""
_INDEX_FORMAT = "passages-v2;fts-ngram-2-3;per-item"
"""Bump whenever passages or the FTS change: tables built in another format are rebuilt."""
_FORMAT_KEY = b"index_format"
_EMBEDDER_KEY = b"embedder_version"

_TABLE_PREFIX = "writing_"
_TABLE_SUFFIX = "_passages"
_COLUMNS = ["passage_id", "kind", "ref_id", "title", "chapter_position", "start", "text", "search_text"]
_ITEM_COLUMNS = ["item_key", "content_hash", "chapter_position"]
_FTS_INDEX_NAME = "search_text_idx"
"""The name LanceDB gives the FTS index on `search_text`."""

_Source = Literal["text", "vector"]


class ProjectIndex:
    """Projects' passages in embedded LanceDB tables, searched by full text and by vector."""

    def __init__(self, db: lancedb.DBConnection, locks: Path, embedder: HashingEmbedder) -> None:
        self._db = db
        self._locks = locks
        self._embedder = embedder
        self._metadata = {_FORMAT_KEY: _INDEX_FORMAT.encode(), _EMBEDDER_KEY: embedder.version.encode()}
        self._tables: dict[str, tuple[int, Table | None]] = {}
        """project id -> the newest revision indexed and its table (None: the project has nothing to index)."""
        self._tables_lock = threading.Lock()

    @classmethod
    def open(cls, directory: Path, embedder: HashingEmbedder | None = None) -> Self:
        """Connect to `directory` (created if missing); tables are built by the searches that need them."""
        locks = directory / ".locks"
        locks.mkdir(parents=True, exist_ok=True)
        return cls(lancedb.connect(directory), locks, embedder or HashingEmbedder())

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
        table = self._table(project_id, revision, documents)
        if table is None:
            return []
        try:
            return self._ranked(table, query, limit, favour)
        except RuntimeError as exc:  # lance's "Not found": another process dropped the table (a format change)
            log.info("project %s: table gone while searching (%s); indexing again", project_id, exc)
            self._forget(project_id, table)
            table = self._table(project_id, revision, documents)
            return [] if table is None else self._ranked(table, query, limit, favour)

    def refresh(self, project_id: str, revision: int, documents: DocumentLoader) -> IndexUpdate:
        """Brings the project's table up to `revision` (see the module docstring) and says what that took;
        an `IndexUpdate()` when the table already held that revision."""
        return self._up_to_date(project_id, revision, documents)[1]

    # indexing

    def _table(self, project_id: str, revision: int, documents: DocumentLoader) -> Table | None:
        cached = self._cached(project_id, revision)
        if cached is not None:
            return cached[1]
        table, _ = self._up_to_date(project_id, revision, documents)
        return table

    def _up_to_date(
        self, project_id: str, revision: int, documents: DocumentLoader
    ) -> tuple[Table | None, IndexUpdate]:
        key = project_key(project_id)
        with _exclusive(self._locks / f"{key}.lock"):
            cached = self._cached(project_id, revision)  # another thread of this process indexed it meanwhile
            if cached is not None:
                return cached[1], IndexUpdate()
            name = _table_name(key)
            table = self._complete_table(name)
            if table is not None and self._indexed_revision(key) >= revision:  # another process indexed it
                update = IndexUpdate()
            elif table is None:
                table, update = self._build(name, documents())
                self._drop_legacy(key)
            else:
                update = self._apply(name, table, documents())
            self._remember_revision(key, revision)
        with self._tables_lock:
            cached = self._tables.get(project_id)
            if cached is None or cached[0] < revision:
                self._tables[project_id] = (revision, table)
        return table, update

    def _cached(self, project_id: str, revision: int) -> tuple[int, Table | None] | None:
        with self._tables_lock:
            cached = self._tables.get(project_id)
        return cached if cached is not None and cached[0] >= revision else None

    def _forget(self, project_id: str, table: Table) -> None:
        with self._tables_lock:
            cached = self._tables.get(project_id)
            if cached is not None and cached[1] is table:
                del self._tables[project_id]

    def _complete_table(self, name: str) -> Table | None:
        """The table `name` if a build finished it (rows written, FTS index committed) in this format."""
        try:
            table = self._db.open_table(name)
        except ValueError:  # lancedb's "Table '...' was not found"
            return None
        stored = table.schema.metadata or {}
        if any(stored.get(key) != value for key, value in self._metadata.items()):
            return None
        indexed = any(index.index_type == "FTS" and index.columns == ["search_text"] for index in table.list_indices())
        return table if indexed else None

    def _build(self, name: str, documents: list[IndexDocument]) -> tuple[Table | None, IndexUpdate]:
        started = time.perf_counter()
        rows = self._rows(documents)
        _drop(self._db, name)  # a table an interrupted build left, or one built in another format
        items = frozenset(rows.column("item_key").to_pylist())
        update = IndexUpdate(built=True, reindexed=items, rows_written=rows.num_rows)
        if rows.num_rows == 0:
            return None, update
        table = self._db.create_table(name, data=rows)
        table.create_index("search_text", config=_FTS_CONFIG)  # the first argument names the column
        elapsed = time.perf_counter() - started
        log.info("indexed %s: %d documents, %d passages in %.2f s", name, len(documents), rows.num_rows, elapsed)
        return table, update

    def _apply(self, name: str, table: Table, documents: list[IndexDocument]) -> IndexUpdate:
        """Rewrites the rows of the items that changed, moved or went, in one commit."""
        started = time.perf_counter()
        indexed = _indexed_items(table)
        current = {item_key(document): document for document in documents}
        changed = {
            key: document
            for key, document in current.items()
            if indexed.get(key, ("", None))[0] != document_hash(document)
        }
        positions = {
            key: document.chapter_position
            for key, document in current.items()
            if key in indexed and key not in changed and indexed[key][1] != document.chapter_position
        }
        removed = indexed.keys() - current.keys()
        fresh = self._rows(list(changed.values()))
        # a blank item has no rows: it is "changed" only if it had rows before
        rewritten = changed.keys() & (indexed.keys() | set(fresh.column("item_key").to_pylist()))
        source = pa.concat_tables([fresh, _moved_rows(table, positions, fresh.schema)])
        stale = rewritten | removed
        if source.num_rows:
            merge = table.merge_insert("passage_id").when_matched_update_all().when_not_matched_insert_all()
            if stale:
                merge = merge.when_not_matched_by_source_delete(_item_filter(stale))
            merge.execute(source)
            stats = table.index_stats(_FTS_INDEX_NAME)
            if stats is not None and stats.num_unindexed_rows > OPTIMIZE_AFTER_ROWS:
                table.optimize()
        elif stale:
            table.delete(_item_filter(stale))
        update = IndexUpdate(
            reindexed=frozenset(rewritten),
            moved=frozenset(positions),
            removed=frozenset(removed),
            rows_written=source.num_rows,
        )
        if source.num_rows or stale:
            log.info(
                "updated %s: %d items reindexed, %d moved, %d removed, %d rows written in %.2f s",
                name,
                len(update.reindexed),
                len(update.moved),
                len(update.removed),
                update.rows_written,
                time.perf_counter() - started,
            )
        return update

    def _indexed_revision(self, key: str) -> int:
        try:
            return int((self._locks / f"{key}.revision").read_text())
        except (FileNotFoundError, ValueError):
            return -1

    def _remember_revision(self, key: str, revision: int) -> None:
        path = self._locks / f"{key}.revision"
        if self._indexed_revision(key) >= revision:
            return
        scratch = path.with_suffix(".revision.tmp")
        scratch.write_text(str(revision))
        os.replace(scratch, path)

    def _drop_legacy(self, key: str) -> None:
        """Tables of the format that kept one table per revision (`writing_<project>_r<revision>`)."""
        pattern = re.compile(rf"{re.escape(_TABLE_PREFIX + key)}_r-?\d+")
        for name in _table_names(self._db):
            if pattern.fullmatch(name):
                _drop(self._db, name)

    def _rows(self, documents: Sequence[IndexDocument]) -> pa.Table:
        records = [record for document in documents for record in passage_records(document)]
        search_texts = [record["search_text"] for record in records]
        vectors = self._embedder.embed(search_texts).ravel()
        schema = pa.schema(
            [
                pa.field("passage_id", pa.string()),
                pa.field("item_key", pa.string()),
                pa.field("content_hash", pa.string()),
                pa.field("kind", pa.string()),
                pa.field("ref_id", pa.string()),
                pa.field("title", pa.string()),
                pa.field("chapter_position", pa.int32()),
                pa.field("start", pa.int32()),
                pa.field("text", pa.string()),
                pa.field("search_text", pa.string()),
                pa.field("vector", pa.list_(pa.float32(), self._embedder.dim)),
            ],
            metadata=self._metadata,
        )
        names = ["passage_id", *_ITEM_COLUMNS[:2], *_COLUMNS[1:]]
        columns = [pa.array([record[column] for record in records], schema.field(column).type) for column in names]
        columns.append(pa.FixedSizeListArray.from_arrays(pa.array(vectors, pa.float32()), self._embedder.dim))
        return pa.Table.from_arrays(columns, schema=schema)

    # searching

    def _ranked(self, table: Table, query: str, limit: int, favour: Sequence[str]) -> list[Passage]:
        depth = max(MIN_CANDIDATES, 4 * limit)
        rankings: tuple[tuple[_Source, list[dict[str, Any]]], ...] = (
            ("text", self._text_hits(table, query, depth)),
            ("vector", self._vector_hits(table, query, depth)),
        )
        candidates: dict[str, _Candidate] = {}
        for source, hits in rankings:
            for rank, row in enumerate(hits, start=1):
                candidate = candidates.setdefault(row["passage_id"], _Candidate(row))
                candidate.score += 1.0 / (RRF_K + rank)
                candidate.matched_by.append(source)
        related = [candidate for candidate in candidates.values() if candidate.related]
        names = [name.casefold() for name in favour if name.strip()]
        for candidate in related:
            if any(name in candidate.row["search_text"].casefold() for name in names):
                candidate.score += FAVOUR_BONUS
        related.sort(key=lambda candidate: (-candidate.score, candidate.row["passage_id"]))
        return [candidate.passage() for candidate in related[:limit]]

    def _text_hits(self, table: Table, query: str, depth: int) -> list[dict[str, Any]]:
        if not query.strip():
            return []
        hits = table.search(query, query_type="fts", fts_columns="search_text").limit(depth)
        return _unique(hits.select([*_COLUMNS, "_score"]).to_list())

    def _vector_hits(self, table: Table, query: str, depth: int) -> list[dict[str, Any]]:
        vector = self._embedder.embed([query])[0]
        if not vector.any():
            return []
        # `Table.search` is typed as returning the generic builder; a vector query builds a vector query.
        nearest = cast(LanceVectorQueryBuilder, table.search(vector, vector_column_name="vector"))
        rows = nearest.distance_type("cosine").limit(depth).select([*_COLUMNS, "_distance"]).to_list()
        return _unique(rows)


@dataclass
class _Candidate:
    """A passage one or both rankings found, with its fused score so far."""

    row: dict[str, Any]
    score: float = 0.0
    matched_by: list[_Source] = field(default_factory=list)

    @property
    def related(self) -> bool:
        """False for a passage only the vectors found, and only as nearest noise (cosine under the floor)."""
        return self.matched_by != ["vector"] or 1.0 - self.row["_distance"] >= VECTOR_FLOOR

    def passage(self) -> Passage:
        row = self.row
        return Passage(
            kind=row["kind"],
            ref_id=row["ref_id"],
            title=row["title"],
            text=row["text"],
            chapter_position=row["chapter_position"],
            start=row["start"],
            score=self.score,
            matched_by=self.matched_by,
        )


def _indexed_items(table: Table) -> dict[str, tuple[str, int | None]]:
    """item key -> (content hash, chapter position) of every item with rows in `table`."""
    rows = table.search().select(_ITEM_COLUMNS).limit(None).to_arrow()
    columns = (rows.column(name).to_pylist() for name in _ITEM_COLUMNS)
    return {key: (content_hash, position) for key, content_hash, position in zip(*columns, strict=True)}


def _moved_rows(table: Table, positions: dict[str, int | None], schema: pa.Schema) -> pa.Table:
    """The rows of the items in `positions` as stored (text and vectors untouched), with their new positions."""
    if not positions:
        return schema.empty_table()
    rows = table.search().where(_item_filter(positions.keys())).select(schema.names).limit(None).to_arrow()
    moved = pa.array([positions[key] for key in rows.column("item_key").to_pylist()], pa.int32())
    rows = rows.set_column(rows.schema.get_field_index("chapter_position"), "chapter_position", moved)
    return rows.select(schema.names).cast(schema)


def _item_filter(keys: Iterable[str]) -> str:
    """A SQL filter for the rows of the items `keys`."""
    quoted = ", ".join("'" + key.replace("'", "''") + "'" for key in sorted(keys))
    return f"item_key IN ({quoted})"


def _unique(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows in order, each passage once."""
    by_id: dict[str, dict[str, Any]] = {}
    for row in rows:
        by_id.setdefault(row["passage_id"], row)
    return list(by_id.values())


def remove_project(directory: Path, project_id: str) -> list[str]:
    """Drops the project's table (and any of the format that kept one per revision) and its revision and lock
    files, holding its lock so an update in progress finishes first; the tables dropped. A search after this loads
    the project's documents again, and a deleted project has none to load (its store says it is not found), so
    nothing is built again."""
    key = project_key(project_id)
    locks = directory / ".locks"
    if not locks.is_dir():
        return []
    db = lancedb.connect(directory)
    legacy = re.compile(rf"{re.escape(_TABLE_PREFIX + key)}_r-?\d+")
    lock = locks / f"{key}.lock"
    with _exclusive(lock):
        names = [name for name in _table_names(db) if name == _table_name(key) or legacy.fullmatch(name)]
        for name in names:
            _drop(db, name)
        (locks / f"{key}.revision").unlink(missing_ok=True)
        lock.unlink()  # a search waiting on it gets it, then finds the project gone
    return names


def _table_name(key: str) -> str:
    return f"{_TABLE_PREFIX}{key}{_TABLE_SUFFIX}"


def _table_names(db: lancedb.DBConnection) -> list[str]:
    names: list[str] = []
    page_token: str | None = None
    while True:
        page = db.list_tables(page_token=page_token)
        names.extend(page.tables)
        page_token = page.page_token
        if not page_token:
            return names


def _drop(db: lancedb.DBConnection, name: str) -> None:
    with suppress(ValueError):  # "Table '...' was not found": another process dropped it first
        db.drop_table(name)


@contextmanager
def _exclusive(path: Path, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Holds an exclusive `flock` on `path` (threads and processes alike; the OS frees it if a holder dies)."""
    deadline = time.monotonic() + timeout
    with path.open("a") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"{path.name}: the project is being indexed for over {timeout:.0f} s") from None
                time.sleep(_LOCK_POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
