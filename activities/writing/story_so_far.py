"""The story so far, as a writing agent's model reads it (issue 25): within a budget of characters, the chapter
list (each chapter's title, length and summary, seed 002 Req 5.2; its opening and closing lines when it has no
summary), the chapters the request names (whole when they
fit, else their start and their end), and the last chapter's ending, the recent text a continuation follows on
from; and, for the consistency agent, the chapters cut into pieces that each fit one model call. Pure."""

from dataclasses import dataclass

from models.writing.agents import AgentRequest
from models.writing.projects import Chapter

STORY_BUDGET_CHARS = 9000
"""The story so far in one prompt, in characters (a Chinese character is about one token)."""
LIST_SHARE = 4
"""The chapter list takes at most a quarter of the budget; the most recent chapters are listed first to keep."""
LINE_CHARS = 40
"""Each listed chapter's opening and closing lines."""
RECENT_CHARS = 1500
"""The last chapter's ending, when the request names no chapter that already carries it."""
REVIEW_CHUNK_CHARS = 12000
"""The chapters one consistency review call reads."""
REVIEW_LIST_CHARS = 3000
"""The chapter list (with summaries) each consistency review call reads besides its chunk."""


def story_so_far(request: AgentRequest, chapters: list[Chapter], budget: int = STORY_BUDGET_CHARS) -> list[str]:
    """The prompt sections, in order: chapter list, named chapters, recent text; none for an empty project."""
    written = [c for c in chapters if c.content.strip()]
    if not written:
        return []
    listing = chapter_list(written, budget // LIST_SHARE)
    left = budget - len(listing)
    sections = [f"## 故事至今：章节列表（共 {len(written)} 章）\n{listing}"]
    named = _named(request, written)
    for chapter in named:
        share = left // (len(named) + 1)
        sections.append(f"## 第{chapter.position}章《{chapter.title}》\n{_whole_or_ends(chapter.content, share)}")
    shown = {c.position for c in named}
    last = written[-1]
    if last.position not in shown:
        ending = _tail(last.content, min(RECENT_CHARS, left // (len(named) + 1)))
        sections.append(f"## 最近的正文：第{last.position}章《{last.title}》的结尾\n{ending}")
    return sections


def chapter_list(chapters: list[Chapter], budget: int) -> str:
    """One line per chapter (title, length, summary), the most recent kept first within `budget` characters."""
    lines: list[str] = []
    used = 0
    for chapter in reversed(chapters):
        text = " ".join(chapter.content.split())
        glance = text if len(text) <= LINE_CHARS * 2 else f"{text[:LINE_CHARS]}……{text[-LINE_CHARS:]}"
        glance = chapter.summary or glance
        line = f"- 第{chapter.position}章《{chapter.title}》（{len(chapter.content)} 字）：{glance}"
        if used + len(line) > budget and lines:
            lines.append(f"- （更早的 {len(chapters) - len(lines)} 章从略）")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(reversed(lines))


def _named(request: AgentRequest, chapters: list[Chapter]) -> list[Chapter]:
    positions = {int(e.text) for e in request.intent.entities if e.kind == "chapter" and e.text.isdigit()}
    return [c for c in chapters if c.position in positions]


def _whole_or_ends(text: str, budget: int) -> str:
    if len(text) <= budget:
        return text
    half = max(budget // 2, 1)
    return f"{text[:half]}\n……（中间 {len(text) - 2 * half} 字从略）……\n{text[-half:]}"


def _tail(text: str, chars: int) -> str:
    return text if len(text) <= chars else "……" + text[-chars:]


@dataclass(frozen=True)
class ChapterPiece:
    """A chapter, or a part of one too long for a review call: its text starts at `start` of the chapter."""

    chapter: Chapter
    start: int
    text: str


def review_chunks(chapters: list[Chapter], budget: int = REVIEW_CHUNK_CHARS) -> list[list[ChapterPiece]]:
    """The chapters in order, grouped so that each group's text fits `budget`; a longer chapter is cut in parts."""
    chunks: list[list[ChapterPiece]] = []
    current: list[ChapterPiece] = []
    used = 0
    for chapter in chapters:
        for start in range(0, max(len(chapter.content), 1), budget):
            piece = ChapterPiece(chapter, start, chapter.content[start : start + budget])
            if current and used + len(piece.text) > budget:
                chunks.append(current)
                current, used = [], 0
            current.append(piece)
            used += len(piece.text)
    if current:
        chunks.append(current)
    return chunks
