"""The offline ConsistencyAgent's English report, for a request written in English: the same findings and style
statistics as `review`, each finding told by its kind in English with the excerpt it was found at."""

from collections import Counter

from activities.common.offline_labels import offline_label_en
from activities.writing.offline.grounding_en import counted, joined
from models.writing.context import ConsistencyIssue, Severity

LABEL = offline_label_en("consistency report")

KINDS_EN = {
    "dead_character_acts": "a character who has died speaks or acts",
    "name_variant": "a spelling one letter away from a character's name, perhaps a typo",
    "unknown_character": "a new name that is not in the character list",
    "trait_conflict": "a character's looks differ from an earlier description",
    "empty_chapter": "the chapter has no text yet",
    "short_chapter": "the chapter is very short and may be unfinished",
    "duplicate_title": "two chapters share a title",
    "repeated_passage": "a paragraph repeats an earlier one word for word",
    "no_known_characters": "the chapter mentions none of the characters in the list",
    "unmentioned_character": "a character in the list appears in no chapter",
}
"""A check's issue kind → what it means, in English (the issue's own message is the check's, in Chinese)."""
_SEVERITIES: dict[Severity, str] = {"error": "error", "warning": "warning", "info": "note"}


def describe_en(issue: ConsistencyIssue) -> str:
    what = KINDS_EN.get(issue.kind, issue.kind.replace("_", " "))
    where = ""
    if issue.location is not None:
        chapter = f"chapter {issue.location.chapter_position}" if issue.location.chapter_position else "the draft"
        where = f"{chapter}, at character {issue.location.start}: "
        what += f': "{issue.location.excerpt}"' if issue.location.excerpt else ""
    return f"[{_SEVERITIES[issue.severity]}] {where}{what}"


def report_en(chapters: int, characters: int, issues: list[ConsistencyIssue], counts: Counter[Severity]) -> list[str]:
    """The report's lines before the style statistics."""
    found = [counted(counts[s], name) for s, name in _SEVERITIES.items()]
    lines = [
        LABEL,
        f"Checked {counted(chapters, 'chapter')} and {counted(characters, 'character')}: {joined(found)}.",
    ]
    lines += [f"{number}. {describe_en(issue)}" for number, issue in enumerate(issues, start=1)]
    if not issues:
        lines.append("Nothing contradicts what came before.")
    return lines


def style_en(sentences: int, average: float, dialogue: float, repeated: list[tuple[str, int]]) -> list[str]:
    words = joined([f"{word} ({counted(count, 'time')})" for word, count in repeated], empty="no word stands out")
    return [
        "Style:",
        f"- Average sentence length: {average:.1f} characters ({counted(sentences, 'sentence')})",
        f"- Share of dialogue: {dialogue:.0%}",
        f"- Most repeated words: {words}",
    ]
