"""The research agent's evidence tools over the user's own evidence notes (`note-1`, `note-2`, ... by position):
`search_notes` (relevance by shared CJK character bigrams and English words) and `extract_facts` (a note's
sentences sorted into statistics, quotes, tips and facts), their tool definitions for the model, and one call run
as the text the model reads next plus a line for the timeline. Also the text helpers the offline writer shares:
sentence splitting, statistic detection and term overlap. Pure and deterministic."""

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from llm.tools import ToolError
from llm.types import ToolCall, ToolDefinition
from models.content.artifacts import EvidenceItem

SEARCH_NOTES = "search_notes"
EXTRACT_FACTS = "extract_facts"
MAX_LIMIT = 5
EXCERPT_CHARS = 160
MAX_FACTS = 8
MAX_CLAIM = 400
MIN_FACT_CHARS = 12
MIN_SENTENCE_CHARS = 6

RESEARCH_TOOLS: tuple[ToolDefinition, ...] = (
    ToolDefinition(
        name=SEARCH_NOTES,
        description=(
            "Search the user's own evidence notes for a query (Chinese or English). Returns the most relevant notes, "
            "best first, each with its note_id, a relevance score in (0, 1] and an excerpt around the best match."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for: a topic, an aspect or a key message."},
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "How many notes to return at most (default 3).",
                },
            },
            "required": ["query"],
        },
    ),
    ToolDefinition(
        name=EXTRACT_FACTS,
        description=(
            "Extract the usable evidence of one note: its sentences sorted into statistics (numbers), quotes, tips "
            "and facts, at most 8, each with the note as its source."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "note_id": {"type": "string", "description": "A note id returned by search_notes, e.g. note-2."},
            },
            "required": ["note_id"],
        },
    ),
)


@dataclass(frozen=True)
class NoteHit:
    """One note that matched a search: its id, its relevance (0, 1] and an excerpt around the best match."""

    note_id: str
    score: float
    excerpt: str


# ---------------------------------------------------------------------------------------------------------- terms

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "the",
        "to",
        "what",
        "with",
        "why",
        "your",
        "you",
        "our",
    ]
)
_SPACES = re.compile(r"\s+")


def terms(text: str) -> set[str]:
    """The matching terms of a text: its CJK character bigrams (a lone CJK character as itself) and its lowercase
    English words (stemmed: `_stem`) and numbers (stop words left out)."""
    lowered = text.lower()
    found: set[str] = set()
    for run in _CJK_RUN.findall(lowered):
        if len(run) == 1:
            found.add(run)
        found.update(run[i : i + 2] for i in range(len(run) - 1))
    found.update(_stem(word) for word in _WORD.findall(lowered) if word not in _STOPWORDS and len(word) > 1)
    return found


def _stem(word: str) -> str:
    """An English word without its common inflection, so "packing", "packed" and "packs" match "pack", and
    "stories" "story" (numbers and short words stay as they are)."""
    if word.isdigit() or len(word) <= 4:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def overlap_score(query: str, text: str) -> float:
    """The share of the query's terms the text contains, 0..1 (0 when the query has no terms)."""
    wanted = terms(query)
    if not wanted:
        return 0.0
    return len(wanted & terms(text)) / len(wanted)


def _excerpt(note: str, query_terms: set[str]) -> str:
    text = _SPACES.sub(" ", note).strip()
    if len(text) <= EXCERPT_CHARS:
        return text
    lowered = text.lower()
    positions: list[int] = []
    for term in sorted(query_terms):
        start = lowered.find(term)
        while start >= 0:
            positions.append(start)
            start = lowered.find(term, start + 1)
    positions.sort()
    width = EXCERPT_CHARS - 2
    best_start, best_count = 0, -1
    for position in positions:
        start = max(0, min(position - 30, len(text) - width))
        count = sum(1 for p in positions if start <= p < start + width)
        if count > best_count:
            best_start, best_count = start, count
    window = text[best_start : best_start + width]
    prefix = "…" if best_start > 0 else ""
    suffix = "…" if best_start + width < len(text) else ""
    return f"{prefix}{window.strip()}{suffix}"


def search_notes(notes: list[str], query: str, limit: int = 3) -> list[NoteHit]:
    """The notes sharing terms with the query, best first (ties in note order), at most `limit` (clamped to 1..5)."""
    limit = max(1, min(MAX_LIMIT, limit))
    wanted = terms(query)
    if not wanted:
        return []
    scored: list[tuple[float, int, NoteHit]] = []
    for index, note in enumerate(notes):
        common = wanted & terms(note)
        if not common:
            continue
        score = round(len(common) / len(wanted), 4)
        scored.append((-score, index, NoteHit(note_id=note_id_of(index), score=score, excerpt=_excerpt(note, common))))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [hit for _, _, hit in scored[:limit]]


def note_id_of(index: int) -> str:
    """The id of the note at a 0-based position."""
    return f"note-{index + 1}"


def note_index(note_id: str, count: int) -> int | None:
    """The 0-based position of `note-N` among `count` notes, None when there is no such note."""
    match = re.fullmatch(r"note-([0-9]{1,4})", note_id.strip())
    if match is None:
        return None
    index = int(match.group(1)) - 1
    return index if 0 <= index < count else None


# ------------------------------------------------------------------------------------------------------ sentences

_TERMINATORS = frozenset("。！？!?；;…")
_CLOSERS = frozenset("”’」』）)\"'")
_ENGLISH_BREAK = re.compile(r"(?<=[A-Za-z0-9%)\"'][.])\s+(?=[A-Z0-9\"“])")
_LIST_MARKER = re.compile(r"^(?:[-*•·▪●]\s*|[0-9]{1,2}[.、)）](?![0-9])\s*|[（(][0-9]{1,2}[)）]\s*|[①-⑳]\s*)")


def split_sentences(text: str) -> list[str]:
    """A text's sentences, in order: split after Chinese and English end marks (closing quotes stay with their
    sentence) and at line breaks, list markers removed."""
    pieces: list[str] = []
    current: list[str] = []
    chars = list(text)
    i = 0
    while i < len(chars):
        char = chars[i]
        if char == "\n":
            pieces.append("".join(current))
            current = []
            i += 1
            continue
        current.append(char)
        i += 1
        if char in _TERMINATORS:
            while i < len(chars) and (chars[i] in _TERMINATORS or chars[i] in _CLOSERS):
                current.append(chars[i])
                i += 1
            pieces.append("".join(current))
            current = []
    pieces.append("".join(current))
    sentences: list[str] = []
    for piece in pieces:
        for part in _ENGLISH_BREAK.split(piece):
            cleaned = _LIST_MARKER.sub("", _SPACES.sub(" ", part).strip()).strip()
            if cleaned and any(c.isalnum() for c in cleaned):
                sentences.append(cleaned)
    return sentences


_STATISTIC = re.compile(
    r"[0-9]+(?:\.[0-9]+)?\s*(?:%|％|‰|万|亿|倍)"
    r"|百分之[0-9零一二三四五六七八九十百]+"
    r"|[零一二三四五六七八九十百千两]+(?:万|亿)"
    r"|(?<![0-9])(?:19|20)[0-9]{2}(?![0-9])"
    r"|[0-9]+(?:\.[0-9]+)?\s*(?:个|位|名|人|次|天|日|小时|分钟|秒|元|块|美元|公斤|千克|斤|克|毫升|升|公里|千米|米|杯|篇|条|家"
    r"|项|款|种|岁|周|个月|月|年|步|千卡|大卡|卡|页|本|张|份|台|件|组|遍|顿|餐|公分|厘米|毫克|微克)"
    r"|[0-9]+(?:\.[0-9]+)?\s*(?:percent|million|billion|thousand|kg|km|mg|ml|kcal|cups?|steps?|minutes?|mins?|hours?"
    r"|days?|weeks?|months?|years?|people|users?|times|calories)(?![a-z])",
    re.IGNORECASE,
)
_QUOTE = re.compile(r"“[^”]+”|\"[^\"]+\"|「[^」]+」|『[^』]+』")
_TIP = re.compile(
    r"建议|可以|记得|不妨|试试|试着|最好|一定要|别忘|务必|避免|不要|推荐"
    r"|\b(?:should|try|remember|avoid|make sure|don't|do not|consider|recommend)\b",
    re.IGNORECASE,
)
EvidenceKind = Literal["statistic", "fact", "quote", "tip"]
_KIND_RANK: dict[str, int] = {"statistic": 0, "quote": 1, "tip": 2, "fact": 3}


def has_statistic(text: str) -> bool:
    """True when the text states a number: a percentage, 万/亿, a year, or a count with its unit."""
    return _STATISTIC.search(text) is not None


def classify(sentence: str) -> EvidenceKind | None:
    """What kind of evidence a sentence is, or None when it says too little to use."""
    if len(sentence) < MIN_SENTENCE_CHARS:
        return None
    if has_statistic(sentence):
        return "statistic"
    if _QUOTE.search(sentence):
        return "quote"
    if _TIP.search(sentence):
        return "tip"
    return "fact" if len(sentence) >= MIN_FACT_CHARS else None


def clip(text: str, limit: int) -> str:
    """The text cut to `limit` characters, with an ellipsis when cut (English at a word boundary when one is near)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    mid_word = cut[-1:].isascii() and cut[-1:].isalnum() and text[limit - 1].isascii() and text[limit - 1].isalnum()
    if mid_word and " " in cut:
        head = cut.rsplit(" ", 1)[0]
        if len(head) >= limit // 2:
            cut = head
    return cut.rstrip(" ，,、；;：:") + "…"


def extract_facts(note_id: str, text: str) -> list[EvidenceItem]:
    """A note's usable sentences as evidence, in note order: at most 8, preferring statistics, then quotes, tips and
    facts; each claim at most 400 characters, its source the note's id."""
    found: list[tuple[int, int, EvidenceItem]] = []
    seen: set[str] = set()
    for position, sentence in enumerate(split_sentences(text)):
        kind = classify(sentence)
        if kind is None or sentence in seen:
            continue
        seen.add(sentence)
        item = EvidenceItem(claim=clip(sentence, MAX_CLAIM), source=note_id, kind=kind)
        found.append((_KIND_RANK[kind], position, item))
    kept = sorted(found, key=lambda entry: (entry[0], entry[1]))[:MAX_FACTS]
    return [item for _, _, item in sorted(kept, key=lambda entry: entry[1])]


# ------------------------------------------------------------------------------------------------------- the calls


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _limit_argument(arguments: dict[str, Any]) -> int:
    value = arguments.get("limit", 3)
    if value is None:
        return 3
    if isinstance(value, bool):
        raise ToolError("search_notes: limit must be an integer from 1 to 5")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise ToolError("search_notes: limit must be an integer from 1 to 5")
    return max(1, min(MAX_LIMIT, value))


def _string_argument(call: ToolCall, name: str) -> str:
    value = call.arguments.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"{call.name}: missing argument '{name}' (a non-empty string)")
    return value.strip()


def run_research_tool(call: ToolCall, notes: list[str]) -> tuple[str, str]:
    """Runs one research tool call over the notes: (compact JSON for the model, one Chinese line for the timeline).
    Raises `ToolError` for an unknown tool, a missing or invalid argument, or an unknown note id."""
    if call.name == SEARCH_NOTES:
        query = _string_argument(call, "query")
        limit = _limit_argument(call.arguments)
        hits = search_notes(notes, query, limit)
        content = _compact(
            {
                "query": query,
                "hits": [{"note_id": h.note_id, "score": h.score, "excerpt": h.excerpt} for h in hits],
            }
        )
        found = "、".join(hit.note_id for hit in hits)
        summary = f"检索笔记“{clip(query, 40)}”：命中 {len(hits)} 条" + (f"（{found}）" if hits else "")
        return content, summary
    if call.name == EXTRACT_FACTS:
        note_id = _string_argument(call, "note_id")
        index = note_index(note_id, len(notes))
        if index is None:
            known = f"note-1 … note-{len(notes)}" if notes else "没有任何笔记"
            raise ToolError(f"extract_facts: unknown note id '{clip(note_id, 40)}' (known: {known})")
        facts = extract_facts(note_id_of(index), notes[index])
        content = _compact({"note_id": note_id_of(index), "facts": [f.model_dump(mode="json") for f in facts]})
        counts = {kind: sum(1 for f in facts if f.kind == kind) for kind in _KIND_RANK}
        detail = "，".join(
            f"{label}{counts[kind]}"
            for kind, label in (("statistic", "数据"), ("quote", "引述"), ("tip", "建议"), ("fact", "事实"))
            if counts[kind]
        )
        summary = f"从 {note_id_of(index)} 提取 {len(facts)} 条证据" + (f"（{detail}）" if detail else "")
        return content, summary
    raise ToolError(f"unknown tool '{clip(call.name, 60)}' (available: {SEARCH_NOTES}, {EXTRACT_FACTS})")
