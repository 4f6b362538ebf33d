"""What the writing family's project indexes share (`stores.writing_index` on LanceDB, `stores.weaviate_writing_index`
on Weaviate): the `ProjectSearch` protocol, the passages a document is cut into, the item keys and hashes that
incremental updates compare, the n-grams full text matches on, and the constants of the fused ranking.

Passages. A chapter is cut at paragraph and sentence ends (。！？ and . ! ?, with closing quotes) into passages
of about 300-600 characters, each with its offset in the chapter; any other document (character, world note,
plot loop, ...) is one passage of at most `MAX_PASSAGE_CHARS`. Both the full text and the vector see the
document's title with the passage, so a character's description is found by the character's name.
"""

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from models.writing.context import MAX_PASSAGE_CHARS, IndexDocument, Passage

CHUNK_MIN = 300
CHUNK_MAX = 600
"""A chapter passage closes at the first paragraph end after `CHUNK_MIN` characters, or before `CHUNK_MAX`."""
TAIL_MIN = 100
"""A chapter's last passage shorter than this joins the one before (which stays under `MAX_PASSAGE_CHARS`)."""

RRF_K = 60
FAVOUR_BONUS = 0.5 / (RRF_K + 1)
VECTOR_FLOOR = 0.2
"""Cosine under which a passage only the vectors found is noise (see the module docstring)."""
MIN_CANDIDATES = 24
"""Each list contributes at least this many candidates (or 4 per requested passage) to the fusion."""


_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_PARAGRAPH = re.compile(r"[^\n]+")
_SENTENCE_END = re.compile(r"(?:[。！？!?]+|\.(?=\s|$))[”’」』）)\"']*")
_SOFT_BREAKS = "，,；;：: 、"
_WORD_RUN = re.compile(r"\w+")

DocumentLoader = Callable[[], list[IndexDocument]]
_Span = tuple[int, int]


class ProjectSearch(Protocol):
    """Hybrid search over one project's documents (embedded LanceDB here, Weaviate at scale)."""

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
        """Up to `limit` passages of the project at `revision` most relevant to `query`, best first;
        `documents()` is called only when the index of that revision must be built."""
        ...


@dataclass(frozen=True)
class IndexUpdate:
    """What bringing a project's table up to a revision did, by item key (`kind:ref_id`)."""

    built: bool = False
    """The table was built from every document (a first search, or a table in another format)."""
    reindexed: frozenset[str] = frozenset()
    """Items cut into passages and embedded again: new ones and those whose title or text changed."""
    moved: frozenset[str] = frozenset()
    """Chapters whose only change is their position: their rows kept, with the new position."""
    removed: frozenset[str] = frozenset()
    rows_written: int = 0


def chapter_spans(text: str) -> list[_Span]:
    """The (start, end) offsets of a chapter's passages: about `CHUNK_MIN`-`CHUNK_MAX` characters each, cut at
    paragraph and sentence ends, without leading or trailing whitespace."""
    spans: list[_Span] = []
    start: int | None = None
    end = 0
    for piece_start, piece_end, closes_paragraph in _pieces(text):
        if start is not None and piece_end - start > CHUNK_MAX:
            spans.append((start, end))
            start = None
        if start is None:
            start = piece_start
        end = piece_end
        if closes_paragraph and end - start >= CHUNK_MIN:
            spans.append((start, end))
            start = None
    if start is not None:
        if spans and end - start < TAIL_MIN:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    trimmed = (_trimmed(text, span_start, span_end) for span_start, span_end in spans)
    return [span for span in trimmed if span[1] > span[0]]


def _pieces(text: str) -> Iterator[tuple[int, int, bool]]:
    """Sentences as (start, end, closes its paragraph), none longer than `CHUNK_MAX`."""
    for paragraph in _PARAGRAPH.finditer(text):
        start = paragraph.start()
        ends = [match.end() for match in _SENTENCE_END.finditer(text, start, paragraph.end())]
        if not ends or ends[-1] < paragraph.end():
            ends.append(paragraph.end())
        for end in ends:
            yield from _bounded(text, start, end, closes_paragraph=end == paragraph.end())
            start = end


def _bounded(text: str, start: int, end: int, *, closes_paragraph: bool) -> Iterator[tuple[int, int, bool]]:
    """A sentence longer than `CHUNK_MAX` cut at its last comma (or space) before each limit, else at the limit."""
    while end - start > CHUNK_MAX:
        window = text[start + CHUNK_MIN : start + CHUNK_MAX]
        soft = max(window.rfind(mark) for mark in _SOFT_BREAKS)
        cut = start + CHUNK_MIN + soft + 1 if soft >= 0 else start + CHUNK_MAX
        yield start, cut, False
        start = cut
    yield start, end, closes_paragraph


def _trimmed(text: str, start: int, end: int) -> _Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def passage_records(document: IndexDocument) -> Iterator[dict[str, Any]]:
    if document.kind == "chapter":
        spans = chapter_spans(document.text)
    else:
        start, end = _trimmed(document.text, 0, len(document.text))
        spans = [(start, min(end, start + MAX_PASSAGE_CHARS))] if end > start else []
    key, content_hash = item_key(document), document_hash(document)
    for start, end in spans:
        text = document.text[start:end]
        yield {
            "passage_id": f"{key}:{start}",
            "item_key": key,
            "content_hash": content_hash,
            "kind": document.kind,
            "ref_id": document.ref_id,
            "title": document.title,
            "chapter_position": document.chapter_position,
            "start": start,
            "text": text,
            "search_text": f"{document.title}\n{text}",
        }


def document_hash(document: IndexDocument) -> str:
    """What an item's passages depend on (its kind, title and text; not a chapter's position), hashed."""
    content = "\0".join((document.kind, document.title, document.text))
    return hashlib.blake2b(content.encode(), digest_size=16).hexdigest()


def item_key(document: IndexDocument) -> str:
    return f"{document.kind}:{document.ref_id}"


def project_key(project_id: str) -> str:
    """The project id where it is a safe table or property value, else a stable hash of it."""
    if _SAFE_ID.fullmatch(project_id):
        return project_id
    return "h" + hashlib.blake2b(project_id.encode(), digest_size=12).hexdigest()


def fold(text: str) -> str:
    """`text` lower-cased and ASCII-folded ("Café" -> "cafe"), as the full text compares it."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in folded if not unicodedata.combining(char))


def search_grams(text: str) -> list[str]:
    """The 2- and 3-grams of each run of letters and digits in `fold(text)`, in order; a one-character run gives
    none. What the Weaviate index matches by BM25, as LanceDB's `ngram` tokenizer does (see `stores.writing_index`).
    A gram occurs in a folded text exactly when it is one of that text's grams (a gram holds no other character)."""
    grams: list[str] = []
    for run in _WORD_RUN.findall(fold(text)):
        for size in (2, 3):
            grams.extend(run[start : start + size] for start in range(len(run) - size + 1))
    return grams
