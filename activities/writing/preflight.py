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
from models.writing.finding_messages import PreflightMessages as Say
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


def _length_issues(chapter: Chapter, english: bool) -> list[ConsistencyIssue]:
    length = len(chapter.content.strip())
    if length == 0:
        return [
            ConsistencyIssue(
                kind="empty_chapter",
                severity="warning",
                message=Say.EMPTY.say(english, position=chapter.position, title=chapter.title),
                location=_location(chapter, 0, len(chapter.content)),
                suggestion=Say.EMPTY_FIX.say(english),
            )
        ]
    if length < SHORT_CHAPTER_CHARS:
        return [
            ConsistencyIssue(
                kind="short_chapter",
                severity="info",
                message=Say.SHORT.say(english, position=chapter.position, title=chapter.title, length=length),
                location=_location(chapter, 0, len(chapter.content)),
            )
        ]
    return []


def _duplicate_titles(chapters: list[Chapter], english: bool) -> list[ConsistencyIssue]:
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
                    message=Say.DUPLICATE_TITLE.say(
                        english, position=chapter.position, earlier=earlier.position, title=title
                    ),
                    location=_location(chapter, 0, 0),
                    suggestion=Say.DUPLICATE_TITLE_FIX.say(english),
                )
            )
    return issues


def _repeated_passages(chapters: list[Chapter], english: bool) -> list[ConsistencyIssue]:
    first_at: dict[str, tuple[Chapter, int]] = {}
    issues = []
    for chapter in chapters:
        for start, end in _paragraphs(chapter.content):
            paragraph = chapter.content[start:end]
            if len(paragraph) < MIN_REPEATED_CHARS:
                continue
            earlier = first_at.setdefault(paragraph, (chapter, start))
            if earlier != (chapter, start):
                where = (
                    Say.SAME_CHAPTER.say(english)
                    if earlier[0] is chapter
                    else Say.OTHER_CHAPTER.say(english, position=earlier[0].position)
                )
                issues.append(
                    ConsistencyIssue(
                        kind="repeated_passage",
                        severity="warning",
                        message=Say.REPEATED.say(english, position=chapter.position, where=where, start=earlier[1]),
                        location=_location(chapter, start, end),
                        suggestion=Say.REPEATED_FIX.say(english),
                    )
                )
    return issues


def _chapters_without_characters(chapters: list[Chapter], names: list[str], english: bool) -> list[ConsistencyIssue]:
    return [
        ConsistencyIssue(
            kind="no_known_characters",
            severity="info",
            message=Say.NO_CHARACTERS.say(english, position=chapter.position, title=chapter.title),
            location=_location(chapter, 0, 0),
            suggestion=Say.NO_CHARACTERS_FIX.say(english),
        )
        for chapter in chapters
        if names and chapter.content.strip() and not name_occurrences(chapter.content, names)
    ]


def _unmentioned_characters(
    chapters: list[Chapter], characters: list[Character], english: bool
) -> list[ConsistencyIssue]:
    names = [c.name for c in characters]
    mentioned = {o.name for chapter in chapters for o in name_occurrences(chapter.content, names)}
    return [
        ConsistencyIssue(
            kind="unmentioned_character",
            severity="info",
            message=Say.UNMENTIONED.say(english, name=c.name),
            suggestion=Say.UNMENTIONED_FIX.say(english),
        )
        for c in characters
        if c.name not in mentioned
    ]


def _chapter_order(issue: ConsistencyIssue) -> tuple[int, int]:
    location = issue.location
    return (location.chapter_position or 0, location.start) if location else (0, 0)


def preflight(chapters: list[Chapter], characters: list[Character], english: bool = False) -> list[ConsistencyIssue]:
    """Every preflight issue of a project (see the rules): the chapters' in chapter order, then the characters';
    in English for a request written in English."""
    ordered = sorted(chapters, key=lambda c: c.position)
    names = [c.name for c in characters]
    issues = [issue for chapter in ordered for issue in _length_issues(chapter, english)]
    issues += _duplicate_titles(ordered, english) + _repeated_passages(ordered, english)
    issues += _chapters_without_characters(ordered, names, english)
    return sorted(issues, key=_chapter_order) + _unmentioned_characters(ordered, characters, english)
