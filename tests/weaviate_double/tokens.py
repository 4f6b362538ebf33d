"""Weaviate's tokenizations of text (word, lowercase, whitespace, field, trigram), which filters on text properties
and BM25 both use, and the English stopword preset BM25 drops from queries."""

import unicodedata


def _alnum(ch: str) -> bool:
    return unicodedata.category(ch)[0] in ("L", "N")


def tokenize(tokenization: str, text: str) -> list[str]:
    """The tokens Weaviate indexes for `text` under this property tokenization."""
    if tokenization == "word":
        words, current = [], []
        for ch in text:
            if _alnum(ch):
                current.append(ch)
            elif current:
                words.append("".join(current).lower())
                current = []
        if current:
            words.append("".join(current).lower())
        return words
    if tokenization == "lowercase":
        return text.lower().split()
    if tokenization == "whitespace":
        return text.split()
    if tokenization == "field":
        stripped = text.strip()
        return [stripped] if stripped else []
    kept = [ch for ch in text.lower() if _alnum(ch)]
    return ["".join(kept[i : i + 3]) for i in range(len(kept) - 2)]


EN_STOPWORDS = frozenset(
    (
        *("a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no"),
        *("not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this"),
        *("to", "was", "will", "with"),
    )
)


def stopwords(inverted_index: dict[str, object]) -> frozenset[str]:
    """The stopwords a collection's inverted index config declares (preset plus additions minus removals)."""
    config = inverted_index.get("stopwords")
    if not isinstance(config, dict):
        return EN_STOPWORDS
    words = set(EN_STOPWORDS if config.get("preset", "en") == "en" else ())
    words |= set(config.get("additions") or ())
    words -= set(config.get("removals") or ())
    return frozenset(words)
