"""Issue 28, conversation memory: a session keeps its last N turns, each text capped; a prompt gets the newest
turns that fit its token budget; a turn belongs to its owner, project and session, and a retried record of the
same run adds nothing; on SQLite and on PostgreSQL (`backend`)."""

from activities.writing.memory import ConversationMemory, within_budget
from models.writing.intents import WritingIntent
from models.writing.sessions import TURN_TEXT_CHARS, TurnIn
from tests.unit.writing.conftest import WritingBackend


def turn_in(n: int, owner: str = "alice", project: str = "p1", session: str = "s1", answer: str = "答") -> TurnIn:
    return TurnIn(
        owner=owner,
        project_id=project,
        session_id=session,
        run_id=f"writing-{owner}-{project}-{session}-{n}",
        text=f"第{n}句",
        intent=WritingIntent.REVISE_CHAPTER,
        answer=answer,
        target_chapter_id="ch2",
        target_chapter_position=2,
    )


def test_a_session_keeps_its_last_n_turns_oldest_first(backend: WritingBackend) -> None:
    store = backend.sessions(keep=3)

    kept = [store.record(turn_in(n)) for n in range(1, 6)]

    assert kept == [1, 2, 3, 3, 3]
    assert [t.text for t in store.turns("alice", "p1", "s1")] == ["第3句", "第4句", "第5句"]


def test_each_turn_is_capped_and_a_retried_record_adds_nothing(backend: WritingBackend) -> None:
    store = backend.sessions(keep=10)

    store.record(turn_in(1, answer="长" * (TURN_TEXT_CHARS * 3)))
    store.record(turn_in(1, answer="另一个答案"))

    (only,) = store.turns("alice", "p1", "s1")
    assert len(only.answer) == TURN_TEXT_CHARS and only.answer.endswith("…")
    assert only.target_chapter_position == 2 and only.intent is WritingIntent.REVISE_CHAPTER


def test_a_turn_is_read_only_by_its_owner_in_its_project_and_session(backend: WritingBackend) -> None:
    store = backend.sessions(keep=10)
    store.record(turn_in(1))

    assert store.turns("bob", "p1", "s1") == []
    assert store.turns("alice", "p2", "s1") == []
    assert store.turns("alice", "p1", "s2") == []
    assert len(store.turns("alice", "p1", "s1")) == 1


async def test_the_prompt_gets_the_newest_turns_within_the_budget(backend: WritingBackend) -> None:
    store = backend.sessions(keep=10)
    projects = backend.projects()
    for n in range(1, 6):
        store.record(turn_in(n, answer="答" * 100))
    turns = store.turns("alice", "p1", "s1")

    counts = []
    for budget in range(0, 1200, 10):
        kept = within_budget(turns, budget)
        counts.append(len(kept))
        assert kept == turns[len(turns) - len(kept) :], "the newest turns, oldest first"
        section = ConversationMemory(store, budget, projects).prompt_section(turns)
        body = section.split("\n", 1)[1] if section else ""
        assert len(body) <= budget + len(kept), "the turns shown fit the budget"

    assert counts == sorted(counts) and counts[0] == 0 and counts[-1] == 5 and {1, 2, 3, 4} <= set(counts)
    assert ConversationMemory(store, 0, projects).prompt_section(turns) is None
    assert await ConversationMemory(store, 100, projects).turns("alice", "p1", None) == []
