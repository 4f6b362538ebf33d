"""The RAG node's style retrieval (seed 000 §3.2): a `StyleStore` protocol and its embedded-LanceDB store.

The table holds one row per name or alias of each style, not one document per style: a short query such as
"水彩风" is compared with "水彩", not with "水彩 watercolor 水彩画 watercolour water color aquarelle", whose
other n-grams would dilute the cosine (measured in docs/rag.md). The long English prompt is never embedded:
it describes the look, not the words users type. A style's score is its best row's cosine, calibrated.
"""

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, Self, cast

import lancedb
import pyarrow as pa
from lancedb.query import LanceVectorQueryBuilder
from lancedb.table import Table

from models.image.state import RetrievedStyle
from stores.calibration import THRESHOLD, calibrate
from stores.embedder import HashingEmbedder
from stores.style_library import StyleEntry, library_fingerprint, load_style_library

log = logging.getLogger(__name__)

TABLE_NAME = "styles"
CACHE_TTL_SECONDS = 3600.0
"""Seed 000 §8.3: "相同 Prompt 缓存 1 小时"."""
CACHE_MAX_ENTRIES = 1024

_FINGERPRINT_KEY = b"library_fingerprint"
_EMBEDDER_KEY = b"embedder_version"

Clock = Callable[[], float]
_CacheKey = tuple[str, int, float]


class StyleStore(Protocol):
    """A vector store of styles the RAG node searches (LanceDB here, Weaviate at scale)."""

    def search(self, query: str, *, limit: int = 3, min_similarity: float = THRESHOLD) -> list[RetrievedStyle]:
        """Up to `limit` styles with calibrated similarity to `query` >= `min_similarity`, best first."""
        ...


class _TtlLruCache:
    """Results by (query, limit, min_similarity), LRU-bounded, expiring `CACHE_TTL_SECONDS` after storing."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._entries: OrderedDict[_CacheKey, tuple[float, tuple[RetrievedStyle, ...]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: _CacheKey) -> list[RetrievedStyle] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            expires_at, results = entry
            if self._clock() >= expires_at:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
        return [result.model_copy() for result in results]

    def put(self, key: _CacheKey, results: Sequence[RetrievedStyle]) -> None:
        stored = tuple(result.model_copy() for result in results)
        with self._lock:
            self._entries[key] = (self._clock() + CACHE_TTL_SECONDS, stored)
            self._entries.move_to_end(key)
            while len(self._entries) > CACHE_MAX_ENTRIES:
                self._entries.popitem(last=False)


class LanceStyleStore:
    """Cosine search over the style library's names and aliases in an embedded LanceDB table."""

    def __init__(self, table: Table, embedder: HashingEmbedder, library: Sequence[StyleEntry], *, clock: Clock) -> None:
        self._table = table
        self._embedder = embedder
        self._styles = {entry.id: entry for entry in library}
        self._rows_per_style = max(len(entry.surface_forms) for entry in library)
        self._cache = _TtlLruCache(clock)

    @classmethod
    def open(
        cls,
        directory: Path,
        embedder: HashingEmbedder | None = None,
        library: list[StyleEntry] | None = None,
        *,
        clock: Clock = time.monotonic,
    ) -> Self:
        """Connect to `directory`, (re)building the table if it is missing or was built from other data."""
        embedder = embedder or HashingEmbedder()
        library = library if library is not None else load_style_library()
        if not library:
            raise ValueError("the style library is empty")
        table = _ensure_table(lancedb.connect(directory), embedder, library)
        return cls(table, embedder, library, clock=clock)

    def search(self, query: str, *, limit: int = 3, min_similarity: float = THRESHOLD) -> list[RetrievedStyle]:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        key = (query, limit, min_similarity)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        results = self._search_uncached(query, limit, min_similarity)
        self._cache.put(key, results)
        return results

    def _search_uncached(self, query: str, limit: int, min_similarity: float) -> list[RetrievedStyle]:
        vector = self._embedder.embed([query])[0]
        if not vector.any():
            return []
        # `Table.search` is typed as returning the generic builder; a vector query builds a vector query.
        nearest = cast(LanceVectorQueryBuilder, self._table.search(vector, vector_column_name="vector"))
        # The k-th best style's best row ranks at most k * rows_per_style, so this many rows suffice.
        rows = (
            nearest.distance_type("cosine")
            .limit(limit * self._rows_per_style)
            .select(["style_id", "_distance"])
            .to_list()
        )
        best: dict[str, float] = {}
        for row in rows:  # nearest first: a style's first row is its best
            best.setdefault(row["style_id"], round(calibrate(1.0 - row["_distance"]), 3))
        ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        return [self._result(style_id, score) for style_id, score in ranked[:limit] if score >= min_similarity]

    def _result(self, style_id: str, similarity: float) -> RetrievedStyle:
        entry = self._styles[style_id]
        return RetrievedStyle(style=f"{entry.name_zh} / {entry.name_en}", prompt=entry.prompt, similarity=similarity)


def _ensure_table(db: lancedb.DBConnection, embedder: HashingEmbedder, library: Sequence[StyleEntry]) -> Table:
    metadata = {
        _FINGERPRINT_KEY: library_fingerprint(library).encode(),
        _EMBEDDER_KEY: embedder.version.encode(),
    }
    existing = _open_table(db)
    if existing is not None and _carries(existing, metadata):
        return existing
    log.info("building style table %r: %d styles, %s", TABLE_NAME, len(library), embedder.version)
    return db.create_table(TABLE_NAME, data=_style_rows(embedder, library, metadata), mode="overwrite")


def _open_table(db: lancedb.DBConnection) -> Table | None:
    try:
        return db.open_table(TABLE_NAME)
    except ValueError:  # lancedb's "Table 'styles' was not found"
        return None


def _carries(table: Table, metadata: dict[bytes, bytes]) -> bool:
    stored = table.schema.metadata or {}
    return all(stored.get(key) == value for key, value in metadata.items())


def _style_rows(embedder: HashingEmbedder, library: Sequence[StyleEntry], metadata: dict[bytes, bytes]) -> pa.Table:
    style_ids = [entry.id for entry in library for _ in entry.surface_forms]
    texts = [form for entry in library for form in entry.surface_forms]
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(embedder.embed(texts).ravel()), embedder.dim)
    schema = pa.schema(
        [
            pa.field("style_id", pa.string()),
            pa.field("text", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), embedder.dim)),
        ],
        metadata=metadata,
    )
    return pa.Table.from_arrays([pa.array(style_ids), pa.array(texts), vectors], schema=schema)
