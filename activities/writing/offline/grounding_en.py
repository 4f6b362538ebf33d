"""What the offline agents' English answers share, for a request written in English (`Grounding.english`, the
rule the writer uses): counts with their plural, lists joined the English way, the request's topic and the
project's sources as an English reader names them."""

from collections.abc import Sequence

from activities.writing.offline.grounding import Grounding, request_topic

TOPIC_CHARS = 80
"""An English request's topic is quoted up to this many characters (a Chinese one up to 30: its words are shorter)."""


def topic_en(grounding: Grounding) -> str:
    """The request without its politeness and end punctuation, as the English answers quote it."""
    return request_topic(grounding.request.text, TOPIC_CHARS)


def counted(number: int, noun: str) -> str:
    """`1 chapter`, `3 chapters`."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def joined(words: Sequence[str], empty: str = "none") -> str:
    """`A`, `A and B`, `A, B and C`; `empty` when there are none."""
    if not words:
        return empty
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def drawn_from(grounding: Grounding, limit: int = 3) -> list[str]:
    """The line naming what the answer drew on (`Drawn from: chapter 2 "Night Rain" and "Greyhaven"`); none when
    the context holds no passage."""
    titles = []
    for passage in grounding.context.passages:
        where = f"chapter {passage.chapter_position} " if passage.chapter_position is not None else ""
        titles.append(f'{where}"{passage.title}"')
    sources = list(dict.fromkeys(titles))[:limit]
    return [f"Drawn from: {joined(sources)}"] if sources else []
