"""The RAG node's style retrieval (seed 000 §3.2): a `StyleStore` protocol and its embedded-LanceDB store.

The table holds one row per name or alias of each style, not one document per style: a short query such as
"水彩风" is compared with "水彩", not with "水彩 watercolor 水彩画 watercolour water color aquarelle", whose
other n-grams would dilute the cosine (measured in docs/rag.md). The long English prompt is never embedded:
it describes the look, not the words users type. A style's score is its best row's cosine, calibrated.
"""

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, Self, cast

import lancedb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
from lancedb.query import LanceVectorQueryBuilder
from lancedb.table import Table

from models.image.state import RetrievedStyle
from stores.calibration import THRESHOLD
from stores.embedder import HashingEmbedder
from stores.style_library import StyleEntry, library_fingerprint, load_style_library
from stores.style_search import CachedStyleSearch, Clock

log = logging.getLogger(__name__)

TABLE_NAME = "styles"
_FINGERPRINT_KEY = b"library_fingerprint"
_EMBEDDER_KEY = b"embedder_version"


class StyleStore(Protocol):
    """A vector store of styles the RAG node searches (LanceDB here, Weaviate at scale)."""

    def search(self, query: str, *, limit: int = 3, min_similarity: float = THRESHOLD) -> list[RetrievedStyle]:
        """Up to `limit` styles with calibrated similarity to `query` >= `min_similarity`, best first."""
        ...


class LanceStyleStore(CachedStyleSearch):
    """Cosine search over the style library's names and aliases in an embedded LanceDB table."""

    def __init__(self, table: Table, embedder: HashingEmbedder, library: Sequence[StyleEntry], *, clock: Clock) -> None:
        super().__init__(embedder, library, clock=clock)
        self._table = table

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

    def _nearest(self, vector: npt.NDArray[np.float32], rows: int) -> list[tuple[str, float]]:
        # `Table.search` is typed as returning the generic builder; a vector query builds a vector query.
        nearest = cast(LanceVectorQueryBuilder, self._table.search(vector, vector_column_name="vector"))
        found = nearest.distance_type("cosine").limit(rows).select(["style_id", "_distance"]).to_list()
        return [(row["style_id"], 1.0 - row["_distance"]) for row in found]


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
