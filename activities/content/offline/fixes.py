"""What the offline writer does differently when it runs as a quality fallback (`AgentRequest.fix`): for
readability, headings without the stem they repeat or the topic they all echo (when the review's findings name
the headings), sentences cut at their clauses even when they carry a number, and paragraphs of at most
`PARAGRAPH_CHARS` characters; for platform fit, a body aimed inside the platform's range with a margin. Pure."""

import re
from collections.abc import Callable
from dataclasses import dataclass

from models.content.agents import QualityFix
from models.content.artifacts import QualityDimension
from models.writing.language import written_in_english

PARAGRAPH_CHARS = 120
"""A readability fix breaks a section's text into paragraphs of at most this many characters."""
STEM_CHARS = 4
"""Headings that share a beginning (or an end) of at least this many characters repeat a stem (as the review
measures it)."""
MIN_HEADING = 2
RANGE_MARGIN = 0.1
"""A platform fit fix keeps the body this share of the platform's range away from either end."""
_HEADING_FINDING = re.compile(r"小标题|heading", re.IGNORECASE)
_CLAUSE = re.compile(r"[，,。.；;：:！!？?…]+")
_EDGE = " ，,、；;：:的和与—-|｜"


@dataclass(frozen=True)
class WriterFix:
    """How the writer changes its strategy for one fix (all off when it does not run as a fallback)."""

    headings: bool = False
    """Rewrite the headings: the findings say they repeat a stem or echo the topic."""
    short_statistics: bool = False
    """Cut every long sentence at its clauses, statistics too (their numbers stay whole in a clause)."""
    paragraph_chars: int | None = None
    margin: float = 0.0
    """Aim this share of the body's range inside either end."""


def writer_fix(fix: QualityFix | None) -> WriterFix:
    """The writer's strategy for the dimension it is to fix; the default one when it has nothing to fix."""
    if fix is None:
        return WriterFix()
    if fix.dimension is QualityDimension.READABILITY:
        headings = any(_HEADING_FINDING.search(finding) for finding in fix.findings)
        return WriterFix(headings=headings, short_statistics=True, paragraph_chars=PARAGRAPH_CHARS)
    if fix.dimension is QualityDimension.PLATFORM_FIT:
        return WriterFix(margin=RANGE_MARGIN)
    return WriterFix()


def plainer_headings(headings: list[str], topic_core: str) -> list[str]:
    """Each heading without the topic and then without the beginning or end it shares with another heading
    (`STEM_CHARS` or more; English at whole words), cut to its first clause; a heading that would be left too short
    stays as it was."""
    core = topic_core.strip()
    pattern = re.compile(re.escape(core), re.IGNORECASE) if core else None
    topicless = [pattern.sub("", heading).strip(_EDGE) if pattern else heading for heading in headings]
    plain: list[str] = []
    for index, (heading, text) in enumerate(zip(headings, topicless, strict=True)):
        others = [other for position, other in enumerate(topicless) if position != index]
        english = written_in_english(heading)
        shared = max((_common_prefix(text, other) for other in others), key=len, default="")
        if english:
            shared = shared[: shared.rfind(" ") + 1]
        if len(shared) >= STEM_CHARS:
            text = text[len(shared) :]
        ending = max((_common_suffix(text, other) for other in others), key=len, default="")
        if english:
            ending = ending[ending.find(" ") :] if " " in ending else ""
        if len(ending) >= STEM_CHARS:
            text = text[: len(text) - len(ending)]
        first = next((part.strip(_EDGE) for part in _CLAUSE.split(text) if part.strip(_EDGE)), "")
        if english:
            first = first[:1].upper() + first[1:]
        plain.append(first if len(first) >= MIN_HEADING else heading)
    return plain


def paragraphs(sentences: list[str], limit: int, join: Callable[[list[str]], str]) -> str:
    """The sentences joined into lines of at most `limit` characters (a longer sentence is a line of its own)."""
    lines: list[list[str]] = [[]]
    for sentence in sentences:
        if lines[-1] and len(join([*lines[-1], sentence])) > limit:
            lines.append([])
        lines[-1].append(sentence)
    return "\n".join(join(line) for line in lines if line)


def _common_prefix(first: str, second: str) -> str:
    size = 0
    while size < min(len(first), len(second)) and first[size].lower() == second[size].lower():
        size += 1
    return first[:size]


def _common_suffix(first: str, second: str) -> str:
    size = 0
    while size < min(len(first), len(second)) and first[-1 - size].lower() == second[-1 - size].lower():
        size += 1
    return first[len(first) - size :]
