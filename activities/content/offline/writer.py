"""The offline writer_agent: the post's `GeneratedContent` for the brief's platform. One text block per body block
(its points and the evidence that matches it, statistics verbatim so the numbers reach the body, other sentences
kept short), an opening line and the brief's call to action, a title within the platform's limit and 3–5 hashtags
(none for 公众号). The body's first line says it is offline (【离线草稿·未接入大模型】, in English for an English
topic, whose post is English throughout: its elaborations are skipped). The body is padded (unused evidence, then
elaborations) or trimmed (whole sentences, the least important first) into the platform's length range, shorter
or longer when the guidance asks. Run as a quality fallback it acts on the review's findings (`offline.fixes`):
plainer headings, shorter sentences and paragraphs for readability, a body inside the range's margin for platform
fit. Pure and deterministic."""

import re
from dataclasses import dataclass, field

from activities.common.offline_labels import offline_label, offline_label_en
from activities.content.offline.brief import (
    CALLS_TO_ACTION,
    CALLS_TO_ACTION_EN,
    DEFAULT_AUDIENCE,
    topic_aspects,
    topic_core,
)
from activities.content.offline.fixes import WriterFix, paragraphs, plainer_headings, writer_fix
from activities.content.offline.research_tools import clip, has_statistic, overlap_score, split_sentences
from models.content.agents import AgentOutcome, AgentRequest, StatePatch
from models.content.artifacts import (
    HASHTAG_COUNT,
    HASHTAG_PLATFORMS,
    PLATFORM_LABELS,
    TITLE_LIMIT,
    BodyBlock,
    ContentBlock,
    CreativeBrief,
    EvidenceItem,
    GeneratedContent,
)
from models.content.options import body_range
from models.writing.language import written_in_english

HEADING_CHARS: dict[str, int] = {"xiaohongshu": 24, "weibo": 30, "wechat": 40, "douyin": 20}
SENTENCE_CHARS = 35
MAX_BLOCKS = 4
MIN_HASHTAGS, MAX_HASHTAGS = HASHTAG_COUNT
SHORTER_FACTOR, LONGER_FACTOR = 0.7, 1.4
OFFLINE_LABEL, OFFLINE_LABEL_EN = offline_label("草稿"), offline_label_en("draft")
"""The first line of every offline post, so it is never taken for a model's."""

_SHORTER = re.compile(
    r"缩短|精简|简短|简洁|短一[点些]|删减|压缩|太长|shorter|shorten|concise|trim|too long", re.IGNORECASE
)
_LONGER = re.compile(
    r"扩写|更详细|详细一[点些]|丰富|展开|长一[点些]|太短|充实|longer|expand|more detail|too short", re.IGNORECASE
)
_CLAUSE_END = re.compile(r"(?<=[，,；;：:])")
_ENDINGS = frozenset("。！？!?…．.”’」』）)\"'～~")
_TAG_STOPWORDS = frozenset({"a", "an", "the", "of", "for", "and", "at", "in", "on", "to", "with", "your", "my", "how"})
_EMOJI = ("📌", "💡", "✅", "🔥", "🌟", "👉")
_NUMERALS = ("一", "二", "三", "四", "五", "六", "七", "八", "九", "十")
_GENERIC_TAGS: dict[str, tuple[str, ...]] = {
    "xiaohongshu": ("干货分享", "实用技巧", "经验分享"),
    "weibo": ("涨知识", "干货分享", "生活小技巧"),
    "douyin": ("知识分享", "干货", "涨知识"),
    "wechat": (),
}
_GENERIC_TAGS_EN = ("Tips", "HowTo", "LifeHacks")

_PER_BLOCK = (
    "关于{h}，有几点值得展开说说。",
    "{h}，是很多{r}都关心的问题。",
    "把{h}做好，整体效果会明显不同。",
    "{h}这一点，值得多花些心思。",
    "想把{h}做好，先从最小的一步开始。",
    "在{h}上多用一点心，回报往往超出预期。",
)
"""Elaborations of one block, naming its heading."""
_GENERIC = (
    "{c}看似简单，细节里却有不少门道。",
    "真正用心体验过，才会明白其中的差别。",
    "每个人的情况不同，找到适合自己的方式最重要。",
    "与其盲目跟风，不如先弄清自己的真实需求。",
    "多做比较、多看反馈，判断会更准确。",
    "先从最容易上手的一步开始，再慢慢深入。",
    "把要点拆成几个小步骤，执行起来更轻松。",
    "遇到问题时，回到最基础的做法往往最有效。",
    "记录下自己的感受，下一次会做得更好。",
    "细节决定体验，每一步都值得认真对待。",
    "给自己留一点弹性，偶尔调整也没关系。",
    "和身边的朋友交流一下，常常会有新的收获。",
    "别急着下结论，多花一点时间观察。",
    "好的选择，往往来自对信息的充分了解。",
    "把有用的经验沉淀下来，随时都能回看。",
    "{r}不妨结合自己的节奏，灵活安排。",
    "同样的方法，坚持下去和浅尝辄止，结果完全不同。",
    "看清楚自己的目标，再决定投入多少时间和精力。",
    "少走弯路的秘诀，是先了解别人踩过的坑。",
    "小小的改变积累起来，也能带来明显的不同。",
)
"""Elaborations that fit any block, each used once."""
_CLOSING = (
    "最后再回顾一下：{k}。",
    "希望这些内容能帮你少走弯路。",
    "{c}没有标准答案，适合自己的才是最好的。",
    "有问题欢迎随时交流，我们一起把它做得更好。",
    "你在这方面有什么心得，也欢迎分享出来。",
    "愿你在{c}这件事上，越来越得心应手。",
    "如果觉得有帮助，不妨先收藏，需要时再回来看看。",
)

EMPTY_SECTION_EN = "More on {h} below."
FILLER_TEMPLATES = (*_PER_BLOCK, *_GENERIC, *_CLOSING, EMPTY_SECTION_EN)
"""Every sentence template the writer may pad with: what the review counts as filler."""

PRIORITY_PADDING, PRIORITY_EVIDENCE, PRIORITY_POINT, PRIORITY_STATISTIC = 0, 1, 2, 3


@dataclass
class _Sentence:
    text: str
    priority: int
    claim: str | None = None
    """The evidence claim this sentence came from."""


@dataclass
class _Section:
    id: str
    heading: str
    """The heading as shown (within the platform's heading length)."""
    topic: str
    """The block's whole heading, for the sentences that name it."""
    sentences: list[_Sentence] = field(default_factory=list)


def _normal(text: str) -> str:
    return re.sub(r"[\s。.！!？?，,；;：:]+", "", text).lower()


def _terminate(sentence: str) -> str:
    sentence = sentence.strip()
    if not sentence or sentence[-1] in _ENDINGS:
        return sentence
    if sentence[-1] in "，,；;：:、":
        sentence = sentence[:-1]
    return sentence + ("." if sentence[-1].isascii() else "。")


def _short_sentences(text: str) -> list[str]:
    """A text as sentences of at most ~35 characters: each sentence cut at its clauses where it is longer."""
    result: list[str] = []
    for sentence in split_sentences(text):
        if len(sentence) <= SENTENCE_CHARS:
            result.append(_terminate(sentence))
            continue
        current = ""
        for clause in (c for c in _CLAUSE_END.split(sentence) if c.strip()):
            if current and len(current) + len(clause) > SENTENCE_CHARS:
                result.append(_terminate(current))
                current = clause.lstrip()
            else:
                current += clause
        if current.strip():
            result.append(_terminate(current))
    return result


def _join(sentences: list[str]) -> str:
    text = ""
    for sentence in sentences:
        if text and text[-1] in ".!?" and sentence[:1].isascii():
            text += " "
        text += sentence
    return text


def wants_length(guidance: str) -> str | None:
    """ "shorter" or "longer" when the guidance asks for it (缩短/精简/shorter; 扩写/更详细/longer), else None."""
    if _SHORTER.search(guidance):
        return "shorter"
    if _LONGER.search(guidance):
        return "longer"
    return None


def _outline(request: AgentRequest, brief: CreativeBrief) -> list[BodyBlock]:
    if request.view.body_blocks:
        return list(request.view.body_blocks)
    return [
        BodyBlock(id=f"b{i + 1}", heading=clip(message, 30), points=[message])
        for i, message in enumerate(brief.key_messages[:MAX_BLOCKS])
    ]


def _evidence_sentences(item: EvidenceItem, short: bool = False) -> list[_Sentence]:
    """The item's sentences; a statistic verbatim, unless `short` (a readability fix) cuts it at its clauses."""
    if item.kind == "statistic" or has_statistic(item.claim):
        texts = _short_sentences(item.claim) if short else [_terminate(item.claim)]
        return [_Sentence(text, PRIORITY_STATISTIC, item.claim) for text in texts]
    if item.kind == "quote":
        return [_Sentence(_terminate(item.claim), PRIORITY_EVIDENCE, item.claim)]
    return [_Sentence(s, PRIORITY_EVIDENCE, item.claim) for s in _short_sentences(item.claim)]


def _point_sentences(point: str, short: bool = False) -> list[_Sentence]:
    sentences: list[_Sentence] = []
    for sentence in split_sentences(point):
        if has_statistic(sentence):
            texts = _short_sentences(sentence) if short else [_terminate(sentence)]
            sentences += [_Sentence(text, PRIORITY_STATISTIC, point) for text in texts]
        else:
            sentences += [_Sentence(s, PRIORITY_POINT, point) for s in _short_sentences(sentence)]
    return sentences


class _Draft:
    """The post being written: its sections and the lines around them, measured as the final body."""

    def __init__(
        self, platform: str, opening: str, cta: str, sections: list[_Section], english: bool, fix: WriterFix
    ) -> None:
        self.platform = platform
        self.paragraph_chars = fix.paragraph_chars
        self.english = english
        self.opening = opening
        self.cta = cta
        self.sections = sections

    def heading_line(self, index: int, heading: str) -> str:
        if self.platform == "xiaohongshu":
            return f"{_EMOJI[index % len(_EMOJI)]} {heading}"
        if self.platform == "weibo":
            return f"【{heading}】"
        numeral = _NUMERALS[index] if index < len(_NUMERALS) else str(index + 1)
        if self.english:
            return f"{index + 1}. {heading}"
        if self.platform == "wechat":
            return f"{numeral}、{heading}"
        return f"第{numeral}，{heading}"

    def text(self, section: _Section) -> str:
        sentences = [s.text for s in section.sentences]
        if self.paragraph_chars is None:
            return _join(sentences)
        return paragraphs(sentences, self.paragraph_chars, _join)

    def body(self) -> str:
        parts = [OFFLINE_LABEL_EN if self.english else OFFLINE_LABEL, self.opening]
        for index, section in enumerate(self.sections):
            text = self.text(section)
            line = self.heading_line(index, section.heading)
            parts.append(f"{line}\n{text}" if text else line)
        parts.append(self.cta)
        return ("\n\n" if self.platform == "wechat" else "\n").join(part for part in parts if part)

    def length(self) -> int:
        return len(self.body())

    def has(self, text: str) -> bool:
        wanted = _normal(text)
        return any(_normal(s.text) == wanted for section in self.sections for s in section.sentences)

    def trim_to(self, cap: int, floor: int = 0) -> None:
        """Removes whole sentences, the least important and latest first, keeping one per block and not going
        below `floor`; then (only when no sentence may go) shortens the longest sentences."""
        while self.length() > cap:
            removable = sorted(
                (sentence.priority, -si, -ti, si, ti)
                for si, section in enumerate(self.sections)
                if len(section.sentences) > 1
                for ti, sentence in enumerate(section.sentences)
            )
            length = self.length()
            allowed = [entry for entry in removable if length - self._cost(entry[3], entry[4]) >= floor]
            if allowed:
                *_, si, ti = allowed[0]
                del self.sections[si].sentences[ti]
                continue
            if removable:
                return
            longest = max(
                (
                    (len(s.text), -si, si, ti)
                    for si, section in enumerate(self.sections)
                    for ti, s in enumerate(section.sentences)
                ),
                default=None,
            )
            if longest is None or longest[0] <= 12:
                return
            *_, si, ti = longest
            sentence = self.sections[si].sentences[ti]
            sentence.text = clip(sentence.text, max(12, len(sentence.text) - (self.length() - cap)))

    def _cost(self, si: int, ti: int) -> int:
        """How many characters removing one sentence saves (its text, and the space before it if any)."""
        section = self.sections[si]
        kept = [s.text for i, s in enumerate(section.sentences) if i != ti]
        return len(self.text(section)) - len(_join(kept))


def _reader(brief: CreativeBrief) -> str:
    return "读者" if brief.audience == DEFAULT_AUDIENCE else brief.audience


def _opening(brief: CreativeBrief, title: str, core: str, blocks: int) -> str:
    platform = brief.platform
    if written_in_english(brief.topic):
        return f"{core}: {blocks} points worth knowing." if blocks > 1 else f"{core}: what is worth knowing."
    points = f"{blocks}个要点" if blocks > 1 else "关键要点"
    if platform == "xiaohongshu":
        return f"✨关于{core}，我整理了{points}，建议先收藏！"
    if platform == "weibo":
        return f"【{title}】关于{core}，这些要点值得一看。"
    if platform == "wechat":
        who = "很多人" if brief.audience == DEFAULT_AUDIENCE else f"很多{brief.audience}"
        parts = f"从{blocks}个方面" if blocks > 1 else "从实际出发"
        return f"{core}，是{who}都关心的话题。本文{parts}展开，帮你把它讲清楚。"
    return f"{core}，{points}一口气说清楚！"


def _title(brief: CreativeBrief, blocks: int) -> str:
    limit = TITLE_LIMIT[brief.platform]
    topic = re.sub(r"\s+", " ", brief.topic).strip()
    candidates = [topic]
    if brief.platform in ("xiaohongshu", "douyin") and blocks > 1:
        candidates.insert(0, f"{topic}｜{blocks}个要点")
    candidates += topic_aspects(topic)[:1]
    for candidate in candidates:
        if candidate and len(candidate) <= limit:
            return candidate
    cut = topic[: limit - 1]
    if topic.isascii() and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ，,：:") + "…"


def _tag(phrase: str) -> str | None:
    if phrase.endswith("…"):
        return None
    cleaned = re.sub(r"[#＃\s\W_]+", " ", phrase).strip()
    if not cleaned:
        return None
    if cleaned.isascii():
        words = [word for word in cleaned.split() if word.lower() not in _TAG_STOPWORDS][:3]
        tag = "".join(word[:1].upper() + word[1:] for word in words)
        return tag if 2 <= len(tag) <= 24 else None
    tag = cleaned.replace(" ", "")
    return tag if len(tag) <= 12 else None


def _hashtags(brief: CreativeBrief) -> list[str]:
    if brief.platform not in HASHTAG_PLATFORMS:
        return []
    candidates = [*topic_aspects(brief.topic), topic_core(brief.topic)]
    if brief.audience != DEFAULT_AUDIENCE and not written_in_english(brief.topic):
        candidates.append(brief.audience)
    tags: list[str] = []
    for candidate in candidates:
        tag = _tag(candidate)
        if tag and tag.lower() not in (t.lower() for t in tags) and len(tags) < MAX_HASHTAGS:
            tags.append(tag)
    generics = _GENERIC_TAGS_EN if written_in_english(brief.topic) else _GENERIC_TAGS[brief.platform]
    for generic in generics:
        if len(tags) >= MIN_HASHTAGS:
            break
        if generic not in tags:
            tags.append(generic)
    return tags


def _sections(
    platform: str, blocks: list[BodyBlock], evidence: list[EvidenceItem], english: bool, short: bool = False
) -> tuple[list[_Section], list[EvidenceItem]]:
    """The blocks' sentences: their points and the evidence that matches them (unmatched statistics go to the block
    with the fewest sentences); returns the evidence left for padding too. English headings may be twice as long
    (a word is several characters)."""
    limit = HEADING_CHARS[platform] * (2 if english else 1)
    sections = [
        _Section(id=block.id, heading=clip(block.heading.strip(), limit), topic=block.heading.strip())
        for block in blocks
    ]
    known: set[str] = set()
    for block, section in zip(blocks, sections, strict=True):
        known.add(_normal(block.heading))
        for point in block.points:
            known.add(_normal(point))
            if _normal(point) != _normal(block.heading):
                section.sentences += _point_sentences(point, short)
    left: list[EvidenceItem] = []
    for item in evidence:
        if _normal(item.claim) in known or item.source == "brief":
            if _normal(item.claim) not in known:
                left.append(item)
            continue
        known.add(_normal(item.claim))
        scores = [
            overlap_score(block.heading, item.claim) + overlap_score(item.claim, " ".join(block.points))
            for block in blocks
        ]
        best = max(range(len(blocks)), key=lambda i: (scores[i], -i))
        if scores[best] > 0:
            sections[best].sentences += _evidence_sentences(item, short)
        elif item.kind == "statistic" or has_statistic(item.claim):
            fewest = min(range(len(sections)), key=lambda i: (len(sections[i].sentences), i))
            sections[fewest].sentences += _evidence_sentences(item, short)
        else:
            left.append(item)
    return sections, left


def _padding(draft: _Draft, brief: CreativeBrief, left: list[EvidenceItem], core: str) -> list[tuple[int, _Sentence]]:
    """What may be added to a short post, in order: the unused evidence, the key messages not yet said, then
    elaborations (one per block, the generic ones spread over the blocks, more per block, a closing)."""
    sections = draft.sections
    reader = _reader(brief)
    pads: list[tuple[int, _Sentence]] = []
    for item in left:
        fewest = min(range(len(sections)), key=lambda i: (len(sections[i].sentences), i))
        pads += [(fewest, s) for s in _evidence_sentences(item)]
    headings = {_normal(section.topic) for section in sections}
    for message in brief.key_messages:
        if _normal(message) not in headings:
            pads += [(len(sections) - 1, _Sentence(s, PRIORITY_EVIDENCE)) for s in _short_sentences(message)]

    recap = clip("、".join(brief.key_messages), 60)

    def elaboration(template: str, heading: str) -> _Sentence:
        text = template.format(h=heading, r=reader, c=core, k=recap)
        return _Sentence(_terminate(text), PRIORITY_PADDING)

    pads += [(i, elaboration(_PER_BLOCK[0], s.topic)) for i, s in enumerate(sections)]
    pads += [(i % len(sections), elaboration(t, "")) for i, t in enumerate(_GENERIC)]
    for template in _PER_BLOCK[1:]:
        pads += [(i, elaboration(template, s.topic)) for i, s in enumerate(sections)]
    pads += [(len(sections) - 1, elaboration(t, "")) for t in _CLOSING]
    return pads


def write_post(request: AgentRequest, evidence: list[EvidenceItem]) -> AgentOutcome:
    """The offline post (see the module): a patch writing only `generated_content`. Raises `ValueError` without a
    brief (the workflow sends the writer only once there is one)."""
    brief = request.view.creative_brief
    if brief is None:
        raise ValueError("the writer needs a creative brief: compile the brief first")
    platform = brief.platform
    low, high = body_range(platform, request.view.length)  # the user's length: a third of the platform's range
    blocks = _outline(request, brief)
    core = topic_core(brief.topic)
    title = _title(brief, len(blocks))
    english = written_in_english(brief.topic)
    fix = writer_fix(request.fix)
    sections, left = _sections(platform, blocks, evidence, english, fix.short_statistics)
    if fix.headings:
        limit = HEADING_CHARS[platform] * (2 if english else 1)
        plain = plainer_headings([_whole_heading(block) for block in blocks], core)
        for section, heading in zip(sections, plain, strict=True):
            section.heading = clip(heading, limit)
    facts = {_normal(item.claim) for item in evidence if item.source != "brief"}
    for index, (block, section) in enumerate(zip(blocks, sections, strict=True)):
        said = [point for point in block.points if _normal(point) in facts]
        if not section.sentences and said:  # a fact that is its own heading is still said, not replaced by filler
            section.sentences += _point_sentences(said[0])
        elif not section.sentences:
            template = EMPTY_SECTION_EN if english else _PER_BLOCK[index % len(_PER_BLOCK)]
            text = template.format(h=section.topic, r=_reader(brief), c=core)
            section.sentences.append(_Sentence(_terminate(text), PRIORITY_POINT))
    cta = brief.call_to_action or (CALLS_TO_ACTION_EN if english else CALLS_TO_ACTION)[platform]
    opening = _opening(brief, title, core, len(blocks))
    draft = _Draft(platform, opening, f"💬{cta}" if platform == "xiaohongshu" else cta, sections, english, fix)

    previous = request.view.generated_content
    baseline = len(previous.body) if previous is not None and previous.body else draft.length()
    baseline = max(low, min(high, baseline))
    adjustment = wants_length(request.guidance)
    margin = int((high - low) * fix.margin)
    floor, cap = low + margin, high - margin
    if adjustment == "shorter":
        cap = max(low, int(baseline * SHORTER_FACTOR))
    elif adjustment == "longer":
        floor = min(high, int(baseline * LONGER_FACTOR) + 1)

    if draft.length() < floor:
        for index, sentence in _padding(draft, brief, left, core):
            if draft.length() >= floor:
                break
            if english and sentence.priority == PRIORITY_PADDING:
                continue
            if not draft.has(sentence.text):
                sections[index].sentences.append(sentence)
    draft.trim_to(cap, floor=low)
    draft.trim_to(high)

    body = draft.body()
    content = GeneratedContent(
        title=title,
        body=body,
        blocks=[
            ContentBlock(id=section.id, heading=section.heading, text=clip(draft.text(section), 4000))
            for section in sections
        ],
        hashtags=_hashtags(brief),
    )
    used = {s.claim for section in sections for s in section.sentences if s.claim is not None}
    cited = [item for item in evidence if item.claim in used and item.source != "brief"]
    statistics = sum(1 for item in cited if item.kind == "statistic")
    summary = (
        f"已写好{PLATFORM_LABELS[platform]}文案：标题「{title}」，正文 {len(body)} 字，{len(sections)} 个段落，"
        f"用到 {len(cited)} 条证据（其中数据 {statistics} 条）"
    )
    if content.hashtags:
        summary += f"，话题标签 {len(content.hashtags)} 个"
    summary += {"shorter": "，已按要求精简", "longer": "，已按要求扩写"}.get(adjustment or "", "")
    summary += _fixed(fix, low + margin, high - margin) + "。"
    return AgentOutcome(patch=StatePatch(generated_content=content), summary=summary[:1000])


def _whole_heading(block: BodyBlock) -> str:
    """The block's heading, or the fact it was cut from (research cuts a long fact to a heading, with "…")."""
    cut = block.heading.strip()
    if cut.endswith("…") and block.points and block.points[0].startswith(cut[:-1]):
        return block.points[0].strip().rstrip("。.!！?？")
    return cut


def _fixed(fix: WriterFix, low: int, high: int) -> str:
    """What the writer changed for the review's findings, for its summary."""
    done = ["改写了重复词干的小标题"] if fix.headings else []
    if fix.paragraph_chars is not None:
        done.append(f"长句按分句拆开、段落不超过 {fix.paragraph_chars} 字")
    if fix.margin:
        done.append(f"正文控制在 {low}–{high} 字")
    return f"；按审核发现{'、'.join(done)}" if done else ""
