"""The revise intent's target (issue 28): which existing chapter "改写第二章" / "rewrite chapter 2" / "改写《雨夜》"
means, or, for a follow-up that names none, the chapter the conversation's last revision targeted; and the offline
placeholder of a revision, which says it is one. Pure; a request whose chapter does not exist gets a message to
fail with (CHAPTER_NOT_FOUND), never an invented chapter."""

from dataclasses import dataclass

from activities.common.offline_labels import offline_label, offline_label_en
from models.writing.agents import AgentResult
from models.writing.intents import IntentResult
from models.writing.language import written_in_english
from models.writing.projects import Chapter
from models.writing.run_messages import RevisionMessages as Say
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
    conversation's last revision targeted, if it still exists. Why there is none is said in the request's language."""
    english = written_in_english(text)
    numbers = [int(e.text) for e in intent.entities if e.kind == "chapter" and e.text.isdigit()]
    if numbers:
        found = next((c for c in chapters if c.position == numbers[0]), None)
        if found is None:
            return Target(None, Say.NO_SUCH_NUMBER.say(english, number=numbers[0], count=len(chapters)))
        return Target(found)
    quoted = {e.text for e in intent.entities if e.kind in ("quoted", "named")}
    by_title = [c for c in chapters if c.title in quoted] or sorted(
        (c for c in chapters if len(c.title) >= 2 and c.title in text), key=lambda c: -len(c.title)
    )
    if by_title:
        return Target(by_title[0])
    if quoted:
        titles = Say.TITLE_SEPARATOR.say(english).join(sorted(quoted))
        return Target(None, Say.NO_SUCH_TITLE.say(english, titles=titles))
    last = next((t for t in reversed(turns) if t.target_chapter_id), None)
    previous = next((c for c in chapters if last and c.chapter_id == last.target_chapter_id), None)
    if previous is not None:
        return Target(previous)
    return Target(None, Say.NOT_NAMED.say(english))


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
    label = offline_label_en("revision") + " " if english else offline_label("改写")
    note = Say.OFFLINE_NOTE.say(english, position=chapter.position, title=chapter.title)
    return f"{label}{note}\n\n{chapter.content}"
