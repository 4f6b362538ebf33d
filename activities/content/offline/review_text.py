"""What the offline review measures in a post's headings and sentences beyond length: headings that repeat one
stem ("…的平台 / …的受众"), the topic echoed in every heading, and the share of sentences that are the offline
writer's own template filler (elaborations that would fit any post). Pure."""

import re
from dataclasses import dataclass

from activities.content.offline.writer import FILLER_TEMPLATES
from models.content.artifacts import GeneratedContent

STEM_CHARS = 4
"""Headings that begin (or end) with the same this-many characters repeat a stem."""
FILLER_SHARE = 0.3
"""A post whose sentences are more than this share template filler is padding, not information."""
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]?")
_PLACEHOLDER = re.compile(r"\\\{[hrck]\\\}")


def _filler_pattern(template: str) -> re.Pattern[str]:
    body = _PLACEHOLDER.sub(".{1,80}?", re.escape(template.rstrip("。.")))
    return re.compile(rf"^{body}[。.]?$")


_FILLER = tuple(_filler_pattern(template) for template in FILLER_TEMPLATES)


@dataclass(frozen=True)
class HeadingCheck:
    """The headings' problems, as sentences (empty when there are none)."""

    problems: list[str]


def check_headings(content: GeneratedContent, topic_core: str, english: bool = False) -> HeadingCheck:
    """Repeated stems and the topic echoed in every heading (a post with fewer than two headings has neither), said
    in English for an English post."""
    headings = [block.heading.strip() for block in content.blocks if block.heading.strip()]
    problems: list[str] = []
    if len(headings) < 2:
        return HeadingCheck(problems)
    if len({heading.lower() for heading in headings}) < len(headings):
        problems.append("repeated headings" if english else "有重复的小标题")
    for name, ends in (("开头", [h[:STEM_CHARS] for h in headings]), ("结尾", [h[-STEM_CHARS:] for h in headings])):
        repeated = sorted({end for end in ends if ends.count(end) > 1 and len(end) == STEM_CHARS})
        if repeated and english:
            where = "begin" if name == "开头" else "end"
            problems.append(f"headings {where} with the same stem ({', '.join(repr(end) for end in repeated)})")
        elif repeated:
            problems.append(f"小标题{name}重复同一词干（{'、'.join(repeated)}）")
    core = topic_core.strip().lower()
    if core and all(core in heading.lower() for heading in headings):
        problems.append(
            f"every heading repeats the topic “{topic_core}”" if english else f"每个小标题都在重复话题“{topic_core}”"
        )
    return HeadingCheck(problems)


def filler_share(body: str) -> tuple[int, int]:
    """(filler sentences, all sentences) of the body."""
    sentences = [match.group().strip() for match in _SENTENCE.finditer(body) if match.group().strip()]
    filler = sum(1 for sentence in sentences if any(pattern.match(sentence) for pattern in _FILLER))
    return filler, len(sentences)
