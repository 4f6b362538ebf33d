"""The offline ConsistencyAgent: the deterministic checks of `consistency.check_chapters` over the project's
chapters and the characters' states, the preflight's findings from the context, a summary of them; for
ANALYZE_STYLE also simple style statistics (average sentence length, share of dialogue, most repeated words). In
English when the request is (`review_en`)."""

import re
from collections import Counter
from collections.abc import Sequence

from activities.common.offline_labels import offline_label
from activities.writing.consistency import check_chapters
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.review_en import report_en, style_en
from activities.writing.story_facts import split_sentences
from models.writing.agents import AgentResult
from models.writing.context import ConsistencyIssue, Severity
from models.writing.intents import WritingIntent

LABEL = offline_label("一致性报告")
TOP_WORDS = 5

_SEVERITY_NAMES = {"error": "错误", "warning": "警告", "info": "提示"}
_DIALOGUE = re.compile(r"“[^”]*”|「[^」]*」|\"[^\"]*\"")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_ENGLISH_WORD = re.compile(r"\b[A-Za-z]{4,}\b")
_STOP_CHARS = frozenset("的了着是在不一这那他她它我你们也就都和与说道个有没来去上下里")
_STOP_WORDS = frozenset({"that", "with", "this", "from", "have", "were", "said", "they", "them", "then", "their"})


def style_statistics(texts: Sequence[str], *, english: bool = False) -> list[str]:
    """Average sentence length, the share of characters inside quotes, and the most repeated words (Chinese
    two-character words without function characters, English words of four letters or more)."""
    text = "\n".join(texts)
    sentences = split_sentences(text)
    if not sentences:
        return ["Style: there is no text to measure."] if english else ["文风统计：没有可统计的正文。"]
    visible = len(re.sub(r"\s", "", text))
    dialogue = sum(len(m.group()) for m in _DIALOGUE.finditer(text))
    words: Counter[str] = Counter()
    for run in _CJK_RUN.findall(text):
        words.update(pair for pair in (run[i : i + 2] for i in range(len(run) - 1)) if not _STOP_CHARS & set(pair))
    words.update(w for w in map(str.lower, _ENGLISH_WORD.findall(text)) if w not in _STOP_WORDS)
    common = [(word, count) for word, count in words.most_common(TOP_WORDS) if count > 1]
    average, share = sum(map(len, sentences)) / len(sentences), dialogue / visible if visible else 0.0
    if english:
        return style_en(len(sentences), average, share, common)
    repeated = [f"{word}（{count}次）" for word, count in common]
    return [
        "文风统计：",
        f"- 平均句长：{average:.1f}字（共{len(sentences)}句）",
        f"- 对白占比：{share:.0%}",
        f"- 高频词：{'、'.join(repeated) if repeated else '没有明显重复的词'}",
    ]


def _describe(issue: ConsistencyIssue) -> str:
    where = ""
    if issue.location is not None:
        chapter = f"第{issue.location.chapter_position}章" if issue.location.chapter_position else "草稿"
        where = f"{chapter}第{issue.location.start}字处："
    suggestion = f"（建议：{issue.suggestion}）" if issue.suggestion else ""
    return f"［{_SEVERITY_NAMES[issue.severity]}］{where}{issue.message}{suggestion}"


def _report(chapters: int, characters: int, issues: list[ConsistencyIssue], counts: Counter[Severity]) -> list[str]:
    lines = [
        LABEL,
        f"检查了{chapters}章、{characters}个角色：错误{counts['error']}处，警告{counts['warning']}处，提示{counts['info']}处。",
    ]
    lines += [f"{number}. {_describe(issue)}" for number, issue in enumerate(issues, start=1)]
    return lines + ([] if issues else ["没有发现前后矛盾的地方。"])


def review(grounding: Grounding) -> AgentResult:
    """The offline consistency report (see the module)."""
    issues = check_chapters(grounding.chapters, grounding.characters, grounding.english)
    issues += [issue for issue in grounding.context.preflight if issue not in issues]
    counts = Counter(issue.severity for issue in issues)
    english = grounding.english
    report = report_en if english else _report
    lines = report(len(grounding.chapters), len(grounding.characters), issues, counts)
    if grounding.request.intent.intent is WritingIntent.ANALYZE_STYLE:
        texts = [c.content for c in grounding.chapters] or [p.text for p in grounding.context.passages]
        lines += style_statistics(texts, english=english)
    return grounding.answer("\n".join(lines), issues=issues)
