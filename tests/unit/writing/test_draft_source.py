"""What a writing run's answer becomes when applied to a chapter: a `revision` of the chapter the run rewrote (the
revise intent's `targetChapterId`), a `draft` anywhere else."""

from models.writing.agents import AgentResult
from models.writing.chapters import draft_source


def result(target: str | None) -> AgentResult:
    return AgentResult(
        agent="writer", text="雨停了。", offline=True, context_source="preprocessing", target_chapter_id=target
    )


def test_a_revision_of_this_chapter_is_a_revision_and_anything_else_a_draft() -> None:
    assert draft_source(result("chap_2"), "chap_2") == "revision"
    assert draft_source(result("chap_2"), "chap_3") == "draft"
    assert draft_source(result(None), "chap_2") == "draft"
