"""Preflight (seed 002's ConsistencyCheck preprocessing): cheap, deterministic checks of a project's chapters and
characters that run before any agent reads them.

The rules:
- `empty_chapter` (warning): a chapter with no text; `short_chapter` (info): fewer than `SHORT_CHAPTER_CHARS`
  characters of text. Their location is the chapter's whole text.
- `duplicate_title` (warning): a chapter with the title of an earlier one; located at the later chapter (an empty
  span at its start, since the title is not part of the text).
- `repeated_passage` (warning): a paragraph of at least `MIN_REPEATED_CHARS` characters that occurs verbatim
  (spaces around it ignored) in an earlier place, the same chapter or another; located at the later copy.
- `unmentioned_character` (info): a character whose name occurs in no chapter.
- `no_known_characters` (info): a chapter with text that names none of the project's characters.
"""

import re
from collections.abc import Iterator

from activities.writing.story_facts import name_occurrences
from models.writing.context import ConsistencyIssue, TextLocation
from models.writing.projects import Chapter, Character

SHORT_CHAPTER_CHARS = 100
MIN_REPEATED_CHARS = 30
EXCERPT_CHARS = 60
"""A location's excerpt: the text from its start, this long at most."""

_PARAGRAPH = re.compile(r"[^\n]+")


def _location(chapter: Chapter, start: int, end: int) -> TextLocation:
    return TextLocation(
        source="chapter",
        chapter_id=chapter.chapter_id,
        chapter_position=chapter.position,
        start=start,
        end=end,
        excerpt=chapter.content[start : start + EXCERPT_CHARS],
    )


def _paragraphs(text: str) -> Iterator[tuple[int, int]]:
    """Each paragraph's span without the spaces around it."""
    for match in _PARAGRAPH.finditer(text):
        stripped = match.group().strip()
        if stripped:
            start = match.start() + match.group().index(stripped)
            yield start, start + len(stripped)


def _length_issues(chapter: Chapter) -> list[ConsistencyIssue]:
    length = len(chapter.content.strip())
    if length == 0:
        return [
            ConsistencyIssue(
                kind="empty_chapter",
                severity="warning",
                message=f"第{chapter.position}章《{chapter.title}》还没有正文。",
                location=_location(chapter, 0, len(chapter.content)),
                suggestion="补上正文，或删除这一章。",
            )
        ]
    if length < SHORT_CHAPTER_CHARS:
        return [
            ConsistencyIssue(
                kind="short_chapter",
                severity="info",
                message=f"第{chapter.position}章《{chapter.title}》只有{length}个字，可能还没写完。",
                location=_location(chapter, 0, len(chapter.content)),
            )
        ]
    return []


def _duplicate_titles(chapters: list[Chapter]) -> list[ConsistencyIssue]:
    first_with: dict[str, Chapter] = {}
    issues = []
    for chapter in chapters:
        title = chapter.title.strip()
        earlier = first_with.setdefault(title, chapter)
        if earlier is not chapter:
            issues.append(
                ConsistencyIssue(
                    kind="duplicate_title",
                    severity="warning",
                    message=f"第{chapter.position}章与第{earlier.position}章同名：《{title}》。",
                    location=_location(chapter, 0, 0),
                    suggestion="给其中一章换个标题。",
                )
            )
    return issues


def _repeated_passages(chapters: list[Chapter]) -> list[ConsistencyIssue]:
    first_at: dict[str, tuple[Chapter, int]] = {}
    issues = []
    for chapter in chapters:
        for start, end in _paragraphs(chapter.content):
            paragraph = chapter.content[start:end]
            if len(paragraph) < MIN_REPEATED_CHARS:
                continue
            earlier = first_at.setdefault(paragraph, (chapter, start))
            if earlier != (chapter, start):
                where = "本章" if earlier[0] is chapter else f"第{earlier[0].position}章"
                issues.append(
                    ConsistencyIssue(
                        kind="repeated_passage",
                        severity="warning",
                        message=f"第{chapter.position}章有一段与{where}第{earlier[1]}字起的段落完全相同。",
                        location=_location(chapter, start, end),
                        suggestion="删去重复的一段，或改写其中之一。",
                    )
                )
    return issues


def _chapters_without_characters(chapters: list[Chapter], names: list[str]) -> list[ConsistencyIssue]:
    return [
        ConsistencyIssue(
            kind="no_known_characters",
            severity="info",
            message=f"第{chapter.position}章《{chapter.title}》没有提到角色表里的任何角色。",
            location=_location(chapter, 0, 0),
            suggestion="若本章有新角色，请把他们加入角色表。",
        )
        for chapter in chapters
        if names and chapter.content.strip() and not name_occurrences(chapter.content, names)
    ]


def _unmentioned_characters(chapters: list[Chapter], characters: list[Character]) -> list[ConsistencyIssue]:
    names = [c.name for c in characters]
    mentioned = {o.name for chapter in chapters for o in name_occurrences(chapter.content, names)}
    return [
        ConsistencyIssue(
            kind="unmentioned_character",
            severity="info",
            message=f"角色“{c.name}”还没有在任何章节中出现。",
            suggestion="安排他出场，或从角色表中移除。",
        )
        for c in characters
        if c.name not in mentioned
    ]


def _chapter_order(issue: ConsistencyIssue) -> tuple[int, int]:
    location = issue.location
    return (location.chapter_position or 0, location.start) if location else (0, 0)


def preflight(chapters: list[Chapter], characters: list[Character]) -> list[ConsistencyIssue]:
    """Every preflight issue of a project (see the rules): the chapters' in chapter order, then the characters'."""
    ordered = sorted(chapters, key=lambda c: c.position)
    names = [c.name for c in characters]
    issues = [issue for chapter in ordered for issue in _length_issues(chapter)]
    issues += _duplicate_titles(ordered) + _repeated_passages(ordered) + _chapters_without_characters(ordered, names)
    return sorted(issues, key=_chapter_order) + _unmentioned_characters(ordered, characters)
