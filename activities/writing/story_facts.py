"""What a writer's chapters say about their characters (seed 002's 状态获取): where each name occurs, which status
(已故, 失踪, 受伤) a description or a chapter gives a character, and the `CharacterState` preprocessing hands the
agents. It is also the one place that finds names, sentences and clauses in a text, for the checks and the
offline agents.

How a status is read:
- a status keyword (`STATUS_PATTERNS`) counts unless the words right before it negate it (没有牺牲, 差点死去,
  never died);
- in a description it is the character's own status (下落不明的神秘女子), unless it qualifies someone the
  description relates the character to (他已故的师父: a pronoun or 的 before it, 的 after it); 已故 outranks 失踪,
  which outranks 受伤, when a description names several;
- in a chapter it belongs to one name: followed by 的 it describes the noun after it (死去的苏念 → 苏念, 牺牲的战友 →
  nobody); otherwise the nearest name before it in its clause (林舟看着苏念死去 → 苏念), else the first name of its
  sentence, the subject a Chinese sentence does not repeat (苏念倒在林舟怀里，死去了 → 苏念);
- the latest chapter that gives a character a status (and in it the last mention) wins over the description.
"""

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from models.writing.context import CharacterState
from models.writing.projects import Chapter, Character

DECEASED = "已故"
MISSING = "失踪"
INJURED = "受伤"

CJK = "\u4e00-\u9fff"
SENTENCE_STOPS = frozenset("。！？!?\n.…")
CLAUSE_STOPS = SENTENCE_STOPS | frozenset("，,；;：:、")

STATUS_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        DECEASED,
        re.compile(
            r"已故|死去|(?<![累笑气吓饿烦困热冷忙急渴痛美])死了|身死|战死|惨死|病死|死于|(?<![累笑气吓饿烦困热冷忙急渴痛美])死在|牺牲|去世|身亡|遇害|被杀|阵亡|殒命|离世"
            r"|\b(?:died|is dead|was dead|lay dead|was killed|were killed|deceased|passed away)\b",
            re.IGNORECASE,
        ),
    ),
    (MISSING, re.compile(r"失踪|下落不明|不知所踪|\b(?:missing|disappeared|vanished)\b", re.IGNORECASE)),
    (INJURED, re.compile(r"受伤|重伤|负伤|轻伤|\b(?:injured|wounded)\b", re.IGNORECASE)),
)
"""In order of precedence: a description that names several gives the first."""

COMPOUND_SURNAMES = ("欧阳", "司马", "上官", "慕容", "诸葛", "东方", "南宫", "独孤", "令狐", "皇甫", "公孙", "轩辕")
SINGLE_SURNAMES = (
    "李王张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎余潘杜戴夏钟汪田"
    "任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段钱汤尹黎易常武乔贺赖龚文楚柳温云凌裴燕慕闻宁季"
)
SURNAMES = (*COMPOUND_SURNAMES, *SINGLE_SURNAMES)
"""Common Chinese surnames, the compound ones first: what makes a quoted word look like a person's name."""

_NEGATED = re.compile(
    r"(?:没有?|未曾?|并未|不会|不曾|不能|别|假装?|差点|险些|几乎)$|\b(?:not|never|no longer)\s+$", re.IGNORECASE
)
_POSSESSORS = frozenset("他她其它我你的之")
"""What before `已故的` makes it someone else's (他已故的师父)."""
_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class NameOccurrence:
    """One occurrence of a character's name (or, for an English full name, its first name) in a text."""

    name: str
    """The character's name as the project spells it."""
    start: int
    end: int


@dataclass(frozen=True)
class StatusMention:
    """A status keyword a text attributes to one character; `start`/`end` is the keyword's span."""

    name: str
    status: str
    start: int
    end: int


def name_spans(text: str, term: str) -> list[tuple[int, int]]:
    """Where `term` occurs: a Chinese name anywhere, a Latin-letter name only as a whole word (case-sensitive)."""
    if not term:
        return []
    if _LATIN.search(term):
        pattern = re.compile(rf"(?<![A-Za-z]){re.escape(term)}(?![A-Za-z])")
        return [(m.start(), m.end()) for m in pattern.finditer(text)]
    spans, index = [], text.find(term)
    while index != -1:
        spans.append((index, index + len(term)))
        index = text.find(term, index + len(term))
    return spans


def search_terms(names: Iterable[str]) -> dict[str, str]:
    """Each spelling to look for, with the name it stands for: the names, plus the first name of an English full
    name ("Mara Venn" → "Mara") when no other character shares it."""
    unique = list(dict.fromkeys(n for n in names if n))
    terms = {name: name for name in unique}
    first_names = Counter(n.split()[0] for n in unique if " " in n and _LATIN.search(n))
    for name in unique:
        first = name.split()[0]
        if " " in name and _LATIN.search(name) and len(first) >= 3 and first_names[first] == 1:
            terms.setdefault(first, name)
    return terms


def name_occurrences(text: str, names: Iterable[str]) -> list[NameOccurrence]:
    """Every occurrence of the names in `text`, in order and without overlaps: where two names overlap (苏念 in
    苏念雪) the longer one counts."""
    found = [
        NameOccurrence(name, start, end)
        for term, name in search_terms(names).items()
        for start, end in name_spans(text, term)
    ]
    found.sort(key=lambda o: (o.start, -(o.end - o.start)))
    kept: list[NameOccurrence] = []
    for occurrence in found:
        if not kept or occurrence.start >= kept[-1].end:
            kept.append(occurrence)
    return kept


def _bounds(text: str, start: int, end: int, stops: frozenset[str]) -> tuple[int, int]:
    left = start
    while left > 0 and text[left - 1] not in stops:
        left -= 1
    right = end
    while right < len(text) and text[right] not in stops:
        right += 1
    return left, right


def sentence_bounds(text: str, start: int, end: int | None = None) -> tuple[int, int]:
    """The sentence around `text[start:end]`, its end punctuation excluded."""
    return _bounds(text, start, start if end is None else end, SENTENCE_STOPS)


def clause_bounds(text: str, start: int, end: int | None = None) -> tuple[int, int]:
    """The clause (between commas, colons or sentence ends) around `text[start:end]`."""
    return _bounds(text, start, start if end is None else end, CLAUSE_STOPS)


_SENTENCE = re.compile(r"[^。！？!?\n]+?(?:[。！？!?…]+[”」』\"’]?|\.(?=\s)|(?=\n)|$)")


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, each with its end punctuation (and a closing quote right after it)."""
    return [s for s in (m.group().strip() for m in _SENTENCE.finditer(text)) if s]


def _is_negated(text: str, keyword_start: int) -> bool:
    clause_start, _ = clause_bounds(text, keyword_start)
    return bool(_NEGATED.search(text[clause_start:keyword_start]))


def _qualifies_another(description: str, keyword: re.Match[str]) -> bool:
    before = description[max(0, keyword.start() - 1) : keyword.start()]
    return description.startswith("的", keyword.end()) and before in _POSSESSORS


def description_status(description: str) -> str | None:
    """The status a character's description gives it (see the module's rules), or None."""
    for status, pattern in STATUS_PATTERNS:
        for match in pattern.finditer(description):
            if not _qualifies_another(description, match) and not _is_negated(description, match.start()):
                return status
    return None


def _owner(text: str, keyword: re.Match[str], occurrences: Sequence[NameOccurrence]) -> str | None:
    if text.startswith("的", keyword.end()):
        follower = next((o for o in occurrences if o.start == keyword.end() + 1), None)
        return follower.name if follower else None
    clause_start, _ = clause_bounds(text, keyword.start())
    before = [o for o in occurrences if o.start >= clause_start and o.end <= keyword.start()]
    if before:
        return before[-1].name
    sentence_start, sentence_end = sentence_bounds(text, keyword.start())
    in_sentence = [o for o in occurrences if sentence_start <= o.start < sentence_end]
    return in_sentence[0].name if in_sentence else None


def status_mentions(text: str, names: Sequence[str]) -> list[StatusMention]:
    """Every status keyword in a chapter that belongs to one of the names (see the module's rules), in order."""
    occurrences = name_occurrences(text, names)
    if not occurrences:
        return []
    mentions = []
    for status, pattern in STATUS_PATTERNS:
        for match in pattern.finditer(text):
            if _is_negated(text, match.start()):
                continue
            owner = _owner(text, match, occurrences)
            if owner is not None:
                mentions.append(StatusMention(owner, status, match.start(), match.end()))
    return sorted(mentions, key=lambda m: m.start)


def character_states(characters: list[Character], chapters: list[Chapter]) -> list[CharacterState]:
    """Each character as the chapters have it now: how often its name occurs, the last chapter it occurs in, and
    its status (the latest chapter that says one, else its description)."""
    names = [c.name for c in characters]
    mentions: Counter[str] = Counter()
    last_seen: dict[str, int] = {}
    chapter_status: dict[str, str] = {}
    for chapter in sorted(chapters, key=lambda c: c.position):
        for occurrence in name_occurrences(chapter.content, names):
            mentions[occurrence.name] += 1
            last_seen[occurrence.name] = chapter.position
        for mention in status_mentions(chapter.content, names):
            chapter_status[mention.name] = mention.status
    return [
        CharacterState(
            character_id=c.character_id,
            name=c.name,
            description=c.description,
            status=chapter_status.get(c.name) or description_status(c.description),
            last_seen_chapter=last_seen.get(c.name),
            mentions=mentions[c.name],
        )
        for c in characters
    ]
