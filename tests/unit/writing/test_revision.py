"""Issue 28, the revise intent: the router's rules recognise a revision of an existing chapter by number (digits
or Chinese numerals) or title, a short follow-up to a revision revises the same chapter, and the target is the
project's chapter the request names, or a clear problem when there is none (nothing invented)."""

from datetime import UTC, datetime
from pathlib import Path

import pytest
from temporalio.testing import ActivityEnvironment

from activities.writing.intent_rules import follow_up_revision, match_intent, unambiguous_intent
from activities.writing.memory import ConversationMemory
from activities.writing.revision import offline_revision, revision_target
from activities.writing.router import Router
from models.writing.intents import WORKFLOW_FOR_INTENT, CreationPhase, IntentResult, WorkflowKind, WritingIntent
from models.writing.nodes import RouteRequest
from models.writing.projects import Chapter
from models.writing.sessions import SessionTurn, TurnIn
from stores.writing_projects import ProjectStore
from stores.writing_sessions import SessionStore

W = WritingIntent
NOW = datetime(2026, 1, 1, tzinfo=UTC)
CHAPTERS = [
    Chapter(chapter_id=f"ch{n}", project_id="p", position=n, title=title, content=f"{title}的正文。", updated_at=NOW)
    for n, title in [(1, "雨夜"), (2, "码头"), (3, "旧案")]
]


def routed(text: str) -> IntentResult:
    result = unambiguous_intent(text)
    assert result is not None, text
    return result


def turn(intent: WritingIntent | None, position: int | None, chapter_id: str | None = None) -> SessionTurn:
    return SessionTurn(
        run_id="writing-1",
        text="改写第二章",
        intent=intent,
        answer="……",
        target_chapter_id=chapter_id,
        target_chapter_position=position,
        created_at=NOW,
    )


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("改写第二章，让节奏更紧凑", 2),
        ("把第3章重写一下", 3),
        ("第十二章需要精简", 12),
        ("重写第一百零五章的结尾部分", 105),
        ("Rewrite chapter 2 with a tighter pace", 2),
        ("Tighten chapter 3, it drags", 3),
    ],
)
def test_a_revision_by_number_is_revise_chapter_with_the_chapter_number(text: str, position: int) -> None:
    result = routed(text)

    assert result.intent == W.REVISE_CHAPTER and result.phase == CreationPhase.REVISION
    assert [(e.kind, e.text) for e in result.entities if e.kind == "chapter"] == [("chapter", str(position))]
    assert WORKFLOW_FOR_INTENT[W.REVISE_CHAPTER] == WorkflowKind.CONTENT_GENERATION


@pytest.mark.parametrize("text", ["润色《码头》，对白太生硬", "《码头》这一章要重写"])
def test_a_revision_by_title_is_revise_chapter_and_targets_that_chapter(text: str) -> None:
    result = routed(text)

    assert result.intent == W.REVISE_CHAPTER
    assert revision_target(text, result, CHAPTERS, []).chapter == CHAPTERS[1]


@pytest.mark.parametrize(
    ("text", "intent"),
    [("把这段润色一下", W.WRITE_CONTENT), ("第二章的节奏太拖沓了", W.ANALYZE_PACING), ("总结第二章", W.SUMMARIZE)],
)
def test_a_passage_rewrite_or_an_analysis_of_a_chapter_is_no_revision(text: str, intent: WritingIntent) -> None:
    result = match_intent(text)

    assert result is not None and result.intent == intent


@pytest.mark.parametrize(("text", "position"), [("改写第二章", 2), ("rewrite chapter 3", 3), ("把第一章重写", 1)])
def test_the_target_is_the_chapter_of_that_number(text: str, position: int) -> None:
    assert revision_target(text, routed(text), CHAPTERS, []).chapter == CHAPTERS[position - 1]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("改写第五章，让节奏更紧凑", "第5章不存在"),
        ("润色《长街》这一章", "没有标题为《长街》的章节"),
        ("改写这一章", "没有指明要改写哪一章"),
    ],
)
def test_no_such_chapter_is_a_problem_not_an_invented_chapter(text: str, problem: str) -> None:
    target = revision_target(text, routed(text), CHAPTERS, [])

    assert target.chapter is None and problem in target.problem


def test_a_revision_that_names_no_chapter_targets_the_conversation_s_last_revision() -> None:
    intent = IntentResult(intent=W.REVISE_CHAPTER, confidence=0.8, phase=CreationPhase.REVISION, source="llm")

    target = revision_target("再紧张一点", intent, CHAPTERS, [turn(W.REVISE_CHAPTER, 2, "ch2")])

    assert target.chapter == CHAPTERS[1]


@pytest.mark.parametrize(
    "text", ["再紧张一点", "更快一些", "再改一下", "节奏再快一点", "even tighter", "a bit more", "make it darker"]
)
def test_a_short_follow_up_to_a_revision_revises_the_same_chapter(text: str) -> None:
    result = follow_up_revision(text, turn(W.REVISE_CHAPTER, 2, "ch2"))

    assert result is not None and result.intent == W.REVISE_CHAPTER
    assert [(e.kind, e.text) for e in result.entities] == [("chapter", "2")]


@pytest.mark.parametrize(
    ("text", "last"),
    [
        ("再紧张一点", None),
        ("再紧张一点", turn(W.WRITE_CONTENT, None)),
        ("写一段林舟和苏念在码头打斗的场景", turn(W.REVISE_CHAPTER, 2, "ch2")),
        ("总结一下", turn(W.REVISE_CHAPTER, 2, "ch2")),
        ("再改写第三章", turn(W.REVISE_CHAPTER, 2, "ch2")),
        ("节奏再快一点", turn(W.WRITE_CONTENT, None)),
        ("林舟在码头等到了天亮，苏念却一直没有出现，他该怎么办", turn(W.REVISE_CHAPTER, 2, "ch2")),
    ],
)
def test_anything_else_is_no_follow_up(text: str, last: SessionTurn | None) -> None:
    assert follow_up_revision(text, last) is None


def test_the_offline_revision_says_it_is_a_placeholder_in_the_request_s_language() -> None:
    chinese, english = offline_revision(CHAPTERS[1], english=False), offline_revision(CHAPTERS[1], english=True)

    assert "离线占位" in chinese and "没有被改写" in chinese and chinese.endswith(CHAPTERS[1].content)
    assert "Offline placeholder" in english and "not rewritten" in english


async def test_the_router_reads_the_conversation_and_sends_a_follow_up_to_the_last_revision_s_chapter(
    tmp_path: Path,
) -> None:
    store = SessionStore.under(tmp_path, keep=5)
    store.record(
        TurnIn(
            owner="alice",
            project_id="p",
            session_id="s1",
            run_id="writing-1",
            text="改写第二章，让节奏更紧凑",
            intent=W.REVISE_CHAPTER,
            answer="……",
            target_chapter_id="ch2",
            target_chapter_position=2,
        )
    )
    router = Router(None, ConversationMemory(store, budget_tokens=1000, projects=ProjectStore.under(tmp_path)))

    async def route(text: str, owner: str = "alice", session: str = "s1") -> IntentResult:
        request = RouteRequest(text=text, use_llm=False, owner=owner, project_id="p", session_id=session)
        return await ActivityEnvironment().run(router.route, request)

    followed = await route("节奏再快一点")
    assert followed.intent == W.REVISE_CHAPTER and [e.text for e in followed.entities] == ["2"]
    assert (await route("节奏再快一点", owner="bob")).intent == W.ANALYZE_PACING, "bob's session is not alice's"
    assert (await route("节奏再快一点", session="s2")).intent == W.ANALYZE_PACING
