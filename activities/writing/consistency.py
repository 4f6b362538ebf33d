"""The deterministic consistency checks (seed 002's ConsistencyAgent without an LLM): a generated draft against the
characters' states (`check_draft`, post-processing), and a project's chapters against each other and the
characters' descriptions (`check_chapters`, the ConsistencyCheck workflow). Every issue points at its place:
`text[start:end]` is exactly the matched span and `excerpt` a window around it.

The rules:
- `dead_character_acts` (error): a 已故 character's name followed, in the same clause and within a few characters,
  by a speech or action verb (苏念笑着说, 苏念缓缓站起身, Mara said), or a dialogue tag right before it (said
  Mara). Not counted: the name as a possessive (苏念的剑, Mara's) or after an object marker (对苏念说, 把苏念), and a
  sentence that recalls the past (回忆, 想起, 生前, 墓, remember, ...). The span runs from the name to the verb.
  In a draft the character's current status counts; across chapters, a death in chapter N (a 已故 keyword the
  chapter attributes to the name, see `story_facts`) makes any later chapter's action an error. Once per character
  and text, at the first action, with how many there are.
- `unknown_character` (info): a name-shaped quotation (「陈默」, “Ash”: a common Chinese surname and one or two
  more characters, or one to three capitalised English words that are not everyday words) or a name introduced by
  名叫/名唤/叫做/named/called, that is no known character nor a variant of one. Once per name.
- `name_variant` (warning): a near miss of a known name. Chinese names of two or three characters: the same
  length with one character different, where the different character is no common function word or verb and the
  spelling stands where a name stands (before a speech or action verb, after 对/向/跟/和/与/叫/喊/问, or alone in
  quotes): 林洲说 for 林舟. English names of five letters or more: a capitalised word at edit distance 1 (Elana
  for Elena). Once per spelling and text; `suggestion` is the known name.
- `trait_conflict` (warning, chapters): a character whose description fixes an eye or hair colour (蓝眼睛, 黑发,
  blue eyes, red hair) and a chapter that gives them another, in the same sentence after their name and before
  any other character's name (林舟眯起黑色的眼睛). `suggestion` is the described colour. Once per character, feature
  and colour in a chapter.
"""

import re
from collections.abc import Iterable, Sequence

from activities.writing.story_facts import (
    CJK,
    DECEASED,
    SURNAMES,
    NameOccurrence,
    name_occurrences,
    search_terms,
    sentence_bounds,
    status_mentions,
)
from models.writing.context import CharacterState, ConsistencyIssue, TextLocation
from models.writing.finding_messages import COLOURS_EN, FEATURES_EN
from models.writing.finding_messages import ConsistencyMessages as Say
from models.writing.projects import Chapter
from models.writing.run_messages import Message, listed

EXCERPT_RADIUS = 20
ACT_WINDOW = 6
"""How many characters (adverbs: 缓缓, 轻声地) may stand between a Chinese name and its verb."""


_ACT_ZH = (
    "说道|说|道|问|答|喊|叫|吼|笑|哭|叹|走|跑|奔|冲|跳|站|坐|躺|蹲|跪|看|望|盯|瞪|拿|握|抓|接|递|拔|挥|推|拉|抬|举"
    "|转身|回头|点头|摇头|伸手|开口|低声|轻声|冷声|皱眉|挑眉|眨|哼"
)
_ACT_EN = (
    "said|says|asked|asks|replied|whispered|shouted|yelled|cried|laughed|smiled|grinned|nodded|sighed|walked|walks"
    "|ran|runs|stood|stands|sat|sits|looked|looks|stared|turned|took|takes|grabbed|reached|drew|opened|stepped"
    "|came|went|spoke|answered"
)
_CLAUSE_BREAK = '，,。！？!?；;：:、\n“”「」『』"'
_ACTS_AFTER_ZH = re.compile(rf"[^{_CLAUSE_BREAK}的之]{{0,{ACT_WINDOW}}}?(?:{_ACT_ZH})")
_ACTS_AFTER_EN = re.compile(rf"(?:\s+[a-z]+ly)?\s+(?:{_ACT_EN})\b")
_TAG_BEFORE_EN = re.compile(r"\b(?:said|asked|replied|whispered|shouted|answered)\s+$")
_OBJECT_MARKER = re.compile(r"(?:对|向|跟|给|朝|替|为|把|被|让|叫|喊|问|找|见|等|扶|抱|背|葬|祭|埋|送|帮)$")
_RECALLS = re.compile(
    r"回忆|想起|想到|记得|记着|记起|怀念|梦见|梦到|梦里|梦中|生前|当年|曾经|往昔|遗言|遗物|墓|灵位|牌位|祭|追忆"
    r"|\b(?:remember\w*|recall\w*|memor(?:y|ies)|dream\w*|once|used to|flashback|grave)\b",
    re.IGNORECASE,
)

_NON_NAME_CHARS = frozenset(
    "的了着过是在有和与及或而但也就都还又再才只不没很太更最这那哪此其之个们些一二三四五六七八九十百千万上下里外中内"
    "前后左右间边旁处时候天年月日头面子儿来去出入回进到起开看说道走跑站坐笑问答想知见听拿把被让给对向从往朝于以为所"
    "因如若虽然即便已将会能要可得地他她它我你您自己人大小多少老新旧长高低远近座片张只条块间哭叹喊叫吼跳握抓接递拔挥"
    "推拉抬举转眨哼怀身心手眼声"
)
"""Characters that make a one-character-off spelling an ordinary word (林中, 苏念说) rather than a misspelt name."""
_NAME_CUE_BEFORE = re.compile(r"(?:对|向|跟|和|与|叫|喊|问|[「“\"])$")
_NAME_CUE_AFTER = re.compile(rf"(?:{_ACT_ZH}|[」”\"])")

_COMMON_EN = frozenset(
    re.findall(
        r"\w+",
        "yes no hello hi hey wait stop run help thanks okay ok sorry please why what how who where when come go look "
        "listen never always now here there enough fine good right sure maybe goodbye bye oh ah well nothing "
        "everything again really the this that",
    )
)
_QUOTED = re.compile(r"「([^」\n]{1,12})」|“([^”\n]{1,12})”|\"([^\"\n]{1,12})\"")
_CHINESE_NAME = re.compile(rf"^(?:{'|'.join(SURNAMES)})[{CJK}]{{1,2}}$")
_NOT_NAME_END = frozenset("吧了吗呢啊呀哦嘛啦哈哥姐叔婶伯娘婆爷兄弟妹们")
_ENGLISH_NAME = re.compile(r"^[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}$")
_INTRODUCED = re.compile(
    rf"(?:名叫|名唤|叫做|唤作)([{CJK}]{{2,4}}?)(?=[的，。、！？；：\s”」,.!?]|$)"
    r"|\b(?:named|called)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
)
_PLACE_ENDINGS = tuple("城山村府镇谷宫岛河湖国寺阁楼殿峰")

_COLOURS = {
    "湛蓝": "蓝", "碧蓝": "蓝", "蓝": "蓝", "乌黑": "黑", "漆黑": "黑", "黑": "黑", "金黄": "金", "金": "金",
    "银白": "白", "银": "白", "白": "白", "火红": "红", "红": "红", "赤": "红", "棕": "棕", "褐": "棕", "栗": "棕",
    "翠绿": "绿", "绿": "绿", "紫": "紫", "灰": "灰", "琥珀": "琥珀",
    "blue": "蓝", "green": "绿", "brown": "棕", "hazel": "棕", "grey": "灰", "gray": "灰", "black": "黑",
    "amber": "琥珀", "violet": "紫", "golden": "金", "blond": "金", "blonde": "金", "red": "红", "auburn": "红",
    "silver": "白", "white": "白",
}  # fmt: skip
"""Every colour word, to the colour it names (银发 and 白发 are the same hair)."""
_ZH_COLOUR = "|".join(sorted((c for c in _COLOURS if not c.isascii()), key=len, reverse=True))
_EN_COLOUR = "|".join(c for c in _COLOURS if c.isascii())
_VERB_AFTER_FA = "[现出生动觉展抖呆怒言布起射亮光]"
"""发 as a verb (发现, 发出) rather than hair."""
_TRAITS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("眼睛", re.compile(rf"({_ZH_COLOUR})色?的?(?:眼睛|眼眸|眸子|瞳孔|瞳仁|双眸|双眼|眼瞳|眸)")),
    ("头发", re.compile(rf"({_ZH_COLOUR})色?的?(?:长发|短发|卷发|头发|发丝|秀发|发(?!{_VERB_AFTER_FA}))")),
    ("眼睛", re.compile(rf"\b({_EN_COLOUR})[- ](?:eyes?|eyed)\b", re.IGNORECASE)),
    ("头发", re.compile(rf"\b({_EN_COLOUR})[- ](?:hair|haired)\b", re.IGNORECASE)),
)


def _location(text: str, start: int, end: int, chapter: Chapter | None = None) -> TextLocation:
    return TextLocation(
        source="chapter" if chapter else "draft",
        chapter_id=chapter.chapter_id if chapter else None,
        chapter_position=chapter.position if chapter else None,
        start=start,
        end=end,
        excerpt=text[max(0, start - EXCERPT_RADIUS) : end + EXCERPT_RADIUS],
    )


def _where(chapter: Chapter | None, english: bool) -> str:
    return Say.CHAPTER.say(english, position=chapter.position) if chapter else Say.DRAFT.say(english)


# dead_character_acts


def action_span(text: str, occurrence: NameOccurrence) -> tuple[int, int] | None:
    """The span of a name and the speech or action it performs (see the rules), or None when it performs none."""
    sentence_start, sentence_end = sentence_bounds(text, occurrence.start, occurrence.end)
    if _RECALLS.search(text[sentence_start:sentence_end]):
        return None
    if _OBJECT_MARKER.search(text[max(0, occurrence.start - 2) : occurrence.start]):
        return None
    tag = _TAG_BEFORE_EN.search(text, max(0, occurrence.start - 12), occurrence.start)
    if tag:
        return tag.start(), occurrence.end
    after = _ACTS_AFTER_EN if text[occurrence.start].isascii() else _ACTS_AFTER_ZH
    match = after.match(text, occurrence.end)
    return (occurrence.start, match.end()) if match else None


def _acting_issue(
    text: str,
    occurrences: Sequence[NameOccurrence],
    message: Message,
    english: bool,
    chapter: Chapter | None = None,
    **fields: object,
) -> list[ConsistencyIssue]:
    """One issue for a dead character's occurrences in a text: at the first that acts, with how many do."""
    spans = [span for span in (action_span(text, o) for o in occurrences) if span is not None]
    if not spans:
        return []
    (start, end), name = spans[0], occurrences[0].name
    count = Say.MORE.say(english, count=len(spans)) if len(spans) > 1 else ""
    return [
        ConsistencyIssue(
            kind="dead_character_acts",
            severity="error",
            message=message.say(english, name=name, span=text[start:end], **fields) + count,
            location=_location(text, start, end, chapter),
            suggestion=Say.DEAD_FIX.say(english, name=name),
        )
    ]


def _by_name(occurrences: Iterable[NameOccurrence], names: Iterable[str]) -> dict[str, list[NameOccurrence]]:
    wanted = set(names)
    grouped: dict[str, list[NameOccurrence]] = {}
    for occurrence in occurrences:
        if occurrence.name in wanted:
            grouped.setdefault(occurrence.name, []).append(occurrence)
    return grouped


def _dead_characters_acting(text: str, characters: Sequence[CharacterState], english: bool) -> list[ConsistencyIssue]:
    dead = [c.name for c in characters if c.status == DECEASED]
    grouped = _by_name(name_occurrences(text, [c.name for c in characters]), dead)
    message = Say.DEAD_IN_DRAFT
    return [issue for occurrences in grouped.values() for issue in _acting_issue(text, occurrences, message, english)]


def _acting_after_death(chapters: Sequence[Chapter], names: Sequence[str], english: bool) -> list[ConsistencyIssue]:
    died_in: dict[str, int] = {}
    issues = []
    for chapter in chapters:
        grouped = _by_name(name_occurrences(chapter.content, names), died_in)
        for name, occurrences in grouped.items():
            died = {"died": died_in[name], "position": chapter.position}
            issues += _acting_issue(chapter.content, occurrences, Say.DEAD_IN_CHAPTER, english, chapter, **died)
        for mention in status_mentions(chapter.content, names):
            if mention.status == DECEASED:
                died_in.setdefault(mention.name, chapter.position)
    return issues


# name_variant


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions of one character each."""
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


def _is_chinese_name(name: str) -> bool:
    return 2 <= len(name) <= 3 and all("\u4e00" <= char <= "\u9fff" for char in name)


def _in_name_slot(text: str, start: int, end: int) -> bool:
    return bool(_NAME_CUE_BEFORE.search(text[max(0, start - 2) : start]) or _NAME_CUE_AFTER.match(text, end))


def _chinese_variants(text: str, name: str, taken: set[int]) -> Iterable[tuple[str, int, int]]:
    for i in range(len(name)):
        pattern = re.compile(f"(?=({re.escape(name[:i])}[{CJK}]{re.escape(name[i + 1 :])}))")
        for match in pattern.finditer(text):
            start, end = match.start(1), match.end(1)
            spelling = match.group(1)
            if spelling == name or spelling[i] in _NON_NAME_CHARS:
                continue
            if any(index in taken for index in range(start, end)):
                continue
            if _in_name_slot(text, start, end):
                yield spelling, start, end


def _english_variants(text: str, term: str, terms: dict[str, str]) -> Iterable[tuple[str, int, int]]:
    for match in re.finditer(r"\b[A-Z][a-z]{3,}\b", text):
        if match.group() not in terms and edit_distance(match.group(), term) == 1:
            yield match.group(), match.start(), match.end()


def name_variants(text: str, names: Sequence[str]) -> list[tuple[str, int, int, str]]:
    """Near misses of the names in `text` (see the rules): (spelling, start, end, the known name), the first
    occurrence of each spelling, in order."""
    terms = search_terms(names)
    # every character inside a known name's occurrence: a spelling overlapping one is no variant
    taken = {index for o in name_occurrences(text, names) for index in range(o.start, o.end)}
    found: dict[str, tuple[str, int, int, str]] = {}
    for term, name in terms.items():
        if _is_chinese_name(term):
            candidates = _chinese_variants(text, term, taken)
        elif term.isascii() and len(term) >= 5:
            candidates = _english_variants(text, term, terms)
        else:
            continue
        for spelling, start, end in candidates:
            if spelling not in terms and (spelling not in found or start < found[spelling][1]):
                found[spelling] = (spelling, start, end, name)
    return sorted(found.values(), key=lambda v: v[1])


def _variant_issues(
    text: str, names: Sequence[str], english: bool, chapter: Chapter | None = None
) -> list[ConsistencyIssue]:
    return [
        ConsistencyIssue(
            kind="name_variant",
            severity="warning",
            message=Say.VARIANT.say(english, where=_where(chapter, english), spelling=spelling, name=name),
            location=_location(text, start, end, chapter),
            suggestion=name,
        )
        for spelling, start, end, name in name_variants(text, names)
    ]


# unknown_character


def _looks_like_name(quoted: str) -> bool:
    if _CHINESE_NAME.match(quoted):
        return quoted[-1] not in _NOT_NAME_END
    return bool(_ENGLISH_NAME.match(quoted)) and quoted.lower() not in _COMMON_EN


def introduced_names(text: str) -> list[tuple[str, int, int]]:
    """Names a text introduces (see the rules): (name, start, end), in order."""
    found = []
    for match in _QUOTED.finditer(text):
        group = next(g for g in (1, 2, 3) if match.group(g) is not None)
        if _looks_like_name(match.group(group)):
            found.append((match.group(group), match.start(group), match.end(group)))
    for match in _INTRODUCED.finditer(text):
        group = 1 if match.group(1) is not None else 2
        if not match.group(group).endswith(_PLACE_ENDINGS):
            found.append((match.group(group), match.start(group), match.end(group)))
    return sorted(found, key=lambda f: f[1])


def _unknown_names(text: str, names: Sequence[str], english: bool) -> list[ConsistencyIssue]:
    terms = search_terms(names)
    variants = {v[0] for v in name_variants(text, names)}
    issues, seen = [], set()
    for name, start, end in introduced_names(text):
        known = name in terms or name in variants or any(term in name or name in term for term in terms)
        if known or name in seen:
            continue
        seen.add(name)
        issues.append(
            ConsistencyIssue(
                kind="unknown_character",
                severity="info",
                message=Say.UNKNOWN.say(english, name=name),
                location=_location(text, start, end),
                suggestion=Say.UNKNOWN_FIX.say(english, name=name),
            )
        )
    return issues


# trait_conflict


def described_traits(description: str) -> dict[str, set[str]]:
    """The eye and hair colours a description fixes: feature (眼睛, 头发) → colours."""
    traits: dict[str, set[str]] = {}
    for feature, pattern in _TRAITS:
        for match in pattern.finditer(description):
            traits.setdefault(feature, set()).add(_COLOURS[match.group(1).lower()])
    return traits


def _trait_conflicts(chapter: Chapter, characters: Sequence[CharacterState], english: bool) -> list[ConsistencyIssue]:
    text = chapter.content
    traits = {c.name: described_traits(c.description) for c in characters}
    occurrences = name_occurrences(text, [c.name for c in characters])
    issues: list[ConsistencyIssue] = []
    seen: set[tuple[str, str, str]] = set()
    for index, occurrence in enumerate(occurrences):
        if not traits.get(occurrence.name):
            continue
        _, region_end = sentence_bounds(text, occurrence.start, occurrence.end)
        others = (o.start for o in occurrences[index + 1 :] if o.name != occurrence.name)
        region_end = min(region_end, next(others, region_end))
        for feature, pattern in _TRAITS:
            for match in pattern.finditer(text, occurrence.end, region_end):
                colour = _COLOURS[match.group(1).lower()]
                described = traits[occurrence.name].get(feature)
                key = (occurrence.name, feature, colour)
                if not described or colour in described or key in seen:
                    continue
                seen.add(key)
                named = {
                    "expected": listed([COLOURS_EN[c] if english else c for c in sorted(described)], english),
                    "feature": FEATURES_EN[feature] if english else feature,
                }
                found = {
                    "position": chapter.position,
                    "name": occurrence.name,
                    "colour": COLOURS_EN[colour] if english else colour,
                }
                issues.append(
                    ConsistencyIssue(
                        kind="trait_conflict",
                        severity="warning",
                        message=Say.TRAIT.say(english, **found, **named),
                        location=_location(text, match.start(), match.end(), chapter),
                        suggestion=Say.TRAIT_FIX.say(english, **named),
                    )
                )
    return issues


# the checks


def check_draft(text: str, characters: list[CharacterState], english: bool = False) -> list[ConsistencyIssue]:
    """A generated draft against the characters' states: dead characters acting, name variants, new names; the
    findings in English for a request written in English."""
    names = [c.name for c in characters]
    issues = _dead_characters_acting(text, characters, english) + _variant_issues(text, names, english)
    issues += _unknown_names(text, names, english)
    return sorted(issues, key=_issue_order)


def check_chapters(
    chapters: list[Chapter], characters: list[CharacterState], english: bool = False
) -> list[ConsistencyIssue]:
    """A project's chapters against each other and the characters' descriptions: acting after death, name
    variants, eye and hair colours that contradict the description; in chapter order, in English for a request
    written in English."""
    ordered = sorted(chapters, key=lambda c: c.position)
    names = [c.name for c in characters]
    issues = _acting_after_death(ordered, names, english)
    for chapter in ordered:
        issues += _variant_issues(chapter.content, names, english, chapter) + _trait_conflicts(
            chapter, characters, english
        )
    return sorted(issues, key=_issue_order)


def _issue_order(issue: ConsistencyIssue) -> tuple[int, int]:
    location = issue.location
    if location is None:
        return (0, 0)
    return (location.chapter_position or 0, location.start)
