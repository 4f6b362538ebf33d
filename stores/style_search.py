"""What every style store shares (`stores.style_store` on LanceDB, `stores.weaviate_style_store` on Weaviate): the
TTL LRU cache of results and the ranking of the nearest name/alias rows into calibrated styles.

A store finds the nearest rows of a query's vector (one row per name or alias of a style, see
`stores.style_store`); a style's score is its best row's cosine, calibrated (`stores.calibration`).
"""

import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from models.image.state import RetrievedStyle
from stores.calibration import THRESHOLD, calibrate
from stores.embedder import HashingEmbedder
from stores.style_library import StyleEntry

CACHE_TTL_SECONDS = 3600.0
"""Seed 000 §8.3: "相同 Prompt 缓存 1 小时"."""
CACHE_MAX_ENTRIES = 1024

Clock = Callable[[], float]
_CacheKey = tuple[str, int, float]


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


class CachedStyleSearch(ABC):
    """`StyleStore.search` over a store's nearest rows: checked, cached, ranked by style and calibrated."""

    def __init__(self, embedder: HashingEmbedder, library: Sequence[StyleEntry], *, clock: Clock) -> None:
        self._embedder = embedder
        self._styles = {entry.id: entry for entry in library}
        self._rows_per_style = max(len(entry.surface_forms) for entry in library)
        self._cache = _TtlLruCache(clock)

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

    @abstractmethod
    def _nearest(self, vector: npt.NDArray[np.float32], rows: int) -> Iterable[tuple[str, float]]:
        """The `rows` rows nearest to `vector` as (style id, cosine), nearest first."""

    def _search_uncached(self, query: str, limit: int, min_similarity: float) -> list[RetrievedStyle]:
        vector = self._embedder.embed([query])[0]
        if not vector.any():
            return []
        best: dict[str, float] = {}
        # The k-th best style's best row ranks at most k * rows_per_style, so this many rows suffice.
        for style_id, cosine in self._nearest(vector, limit * self._rows_per_style):
            best.setdefault(style_id, round(calibrate(cosine), 3))  # nearest first: a style's first row is its best
        ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        return [self._result(style_id, score) for style_id, score in ranked[:limit] if score >= min_similarity]

    def _result(self, style_id: str, similarity: float) -> RetrievedStyle:
        entry = self._styles[style_id]
        return RetrievedStyle(style=f"{entry.name_zh} / {entry.name_en}", prompt=entry.prompt, similarity=similarity)
