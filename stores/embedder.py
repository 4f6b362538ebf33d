"""An offline multilingual text embedder: feature hashing of character n-grams, no downloaded weights.

Chinese/Japanese/Korean runs give character unigrams and bigrams; Latin runs give lowercase words, words
joined with their neighbour ("cyber punk" also yields "cyberpunk") and character trigrams with boundary
markers ("watercolour" and "watercolor" share 9 of their trigrams). Text is NFKC-normalised first, so
full-width letters match their ASCII forms. The n-grams of "风格", "风" and "style" weigh 0.2: they say
that a text names a style, not which one. Features are hashed with blake2b (stable across processes,
unlike `hash()`) into `dim` signed buckets, and every row is L2-normalised, so a dot product is a cosine.
How the weights were chosen and what the resulting cosines mean: docs/rag.md.
"""

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

_ALGORITHM_VERSION = 1
"""Bump whenever features or weights change: stored vectors built by another version are stale."""

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]+")

_GENERIC_WORDS = ("风格", "风", "style")
_GENERIC_WEIGHT = 0.2


@lru_cache(maxsize=65536)
def _stable_hash(feature: str) -> int:
    return int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")


def _cjk_ngrams(run: str) -> list[str]:
    unigrams = ["u:" + char for char in run]
    bigrams = ["b:" + run[start : start + 2] for start in range(len(run) - 1)]
    return unigrams + bigrams


def _word_ngrams(word: str) -> list[str]:
    marked = f"<{word}>"
    return ["w:" + word] + ["t:" + marked[start : start + 3] for start in range(len(marked) - 2)]


def _ngram_counts(text: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    previous_word: str | None = None
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()):
        if _CJK_RUN.fullmatch(token):
            counts.update(_cjk_ngrams(token))
            previous_word = None
            continue
        counts.update(_word_ngrams(token))
        if previous_word is not None:
            counts["w:" + previous_word + token] += 1
        previous_word = token
    return counts


_GENERIC_FEATURES = frozenset(feature for word in _GENERIC_WORDS for feature in _ngram_counts(word))


def text_features(text: str) -> dict[str, float]:
    """The weighted n-gram features of `text` (empty for text without letters, digits or CJK, e.g. emoji)."""
    return {
        feature: count * (_GENERIC_WEIGHT if feature in _GENERIC_FEATURES else 1.0)
        for feature, count in _ngram_counts(text).items()
    }


class HashingEmbedder:
    """Embeds texts as L2-normalised float32 rows of `dim` hashed n-gram features."""

    name = "hashing-ngram"

    def __init__(self, dim: int = 512) -> None:
        if dim < 16:
            raise ValueError(f"dim must be at least 16, got {dim}")
        self.dim = dim

    @property
    def version(self) -> str:
        """Identifies the vector space: a table stored under another version must be re-embedded."""
        return f"{self.name}-v{_ALGORITHM_VERSION}-d{self.dim}"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One row per text; rows are unit length, or all zeros when a text has no features."""
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            self._fill(matrix[row], text_features(text))
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        np.divide(matrix, norms, out=matrix, where=norms > 0)
        return matrix

    def _fill(self, row: npt.NDArray[np.float32], features: dict[str, float]) -> None:
        for feature, weight in features.items():
            hashed = _stable_hash(feature)
            sign = 1.0 if hashed >> 63 else -1.0
            row[hashed % self.dim] += sign * weight
