"""The revise intent's target (issue 28): which existing chapter "改写第二章" / "rewrite chapter 2" / "改写《雨夜》"
means, or, for a follow-up that names none, the chapter the conversation's last revision targeted; and the offline
placeholder of a revision, which says it is one. Pure; a request whose chapter does not exist gets a message to
fail with (CHAPTER_NOT_FOUND), never an invented chapter."""

from dataclasses import dataclass

from activities.writing.offline.grounding import offline_label
from models.writing.agents import AgentResult
from models.writing.intents import IntentResult
from models.writing.projects import Chapter
from models.writing.sessions import SessionTurn

REVISION_CHARS = 12_000
"""The chapter a revision prompt carries whole; a longer one is given as its start and end."""


@dataclass(frozen=True)
class Target:
    """The chapter to revise, or why there is none."""

    chapter: Chapter | None
    problem: str = ""


def revision_target(text: str, intent: IntentResult, chapters: list[Chapter], turns: list[SessionTurn]) -> Target:
    """By number (第二章, 第12章, chapter 2), else by title (quoted, or named in the request), else the chapter the
    conversation's last revision targeted, if it still exists."""
    numbers = [int(e.text) for e in intent.entities if e.kind == "chapter" and e.text.isdigit()]
    if numbers:
        found = next((c for c in chapters if c.position == numbers[0]), None)
        if found is None:
            return Target(None, f"第{numbers[0]}章不存在：项目现有 {len(chapters)} 章")
        return Target(found)
    quoted = {e.text for e in intent.entities if e.kind in ("quoted", "named")}
    by_title = [c for c in chapters if c.title in quoted] or sorted(
        (c for c in chapters if len(c.title) >= 2 and c.title in text), key=lambda c: -len(c.title)
    )
    if by_title:
        return Target(by_title[0])
    if quoted:
        return Target(None, f"没有标题为《{'》《'.join(sorted(quoted))}》的章节")
    last = next((t for t in reversed(turns) if t.target_chapter_id), None)
    previous = next((c for c in chapters if last and c.chapter_id == last.target_chapter_id), None)
    if previous is not None:
        return Target(previous)
    return Target(None, "没有指明要改写哪一章：请写明章号（如“第二章”）或章节标题")


def with_target(result: AgentResult, chapter: Chapter) -> AgentResult:
    """`result` as a proposed new version of `chapter`."""
    update = {
        "target_chapter_id": chapter.chapter_id,
        "target_chapter_position": chapter.position,
        "target_chapter_title": chapter.title,
    }
    return result.model_copy(update=update)


def revision_section(chapter: Chapter) -> str:
    """The prompt section of the chapter under revision, and what to answer with."""
    content = chapter.content
    if len(content) > REVISION_CHARS:
        half = REVISION_CHARS // 2
        content = f"{content[:half]}\n……（中间 {len(content) - 2 * half} 字从略）……\n{content[-half:]}"
    return (
        f"## 要改写的章节：第{chapter.position}章《{chapter.title}》（原文）\n{content}\n\n"
        "按作者的要求改写这一章，输出改写后的完整章节正文（不加说明）；"
        "若对话中上一轮已给出改写稿，在那一稿的基础上继续改。"
    )


def offline_revision(chapter: Chapter, english: bool) -> str:
    """Without a model nothing is rewritten: the placeholder says so and carries the chapter as it is."""
    if english:
        note = (
            f"{offline_label('改写')} Offline placeholder: no model is configured, so chapter {chapter.position} "
            f"“{chapter.title}” was not rewritten; its current text follows unchanged."
        )
    else:
        note = f"{offline_label('改写')}离线占位：第{chapter.position}章《{chapter.title}》没有被改写，以下是原文。"
    return f"{note}\n\n{chapter.content}"
