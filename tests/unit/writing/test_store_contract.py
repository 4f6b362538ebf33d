"""The rest of the project store's contract, on SQLite and on PostgreSQL (`backend`): proposals accepted (in the
order their items need) and rejected once; chapters reordered against the list's tag and restored from a kept
version; a project deleted only at the revision its caller saw, with everything in it, and a turn recorded after
that not kept."""

from functools import partial

import pytest

from models.writing.intents import WritingIntent
from models.writing.projects import ChapterIn, CharacterIn, ProjectIn
from models.writing.proposals import Proposal
from models.writing.sessions import TurnIn
from stores.writing_projects import ChapterOrderError, NotFoundError, StaleVersionError, chapter_list_tag
from stores.writing_proposals import ProposalDecidedError, ProposalNeedsCharacterError
from tests.unit.writing.conftest import WritingBackend

OWNER = "alice"


def test_proposals_become_items_when_accepted_and_are_decided_once(backend: WritingBackend) -> None:
    store = backend.projects()
    project = store.create_project(OWNER, ProjectIn(name="长夜")).project_id
    edge = store.propose(
        OWNER, project, "run_a", "relationship", "e", {"source": "林舟", "target": "苏念", "kind": "师徒"}
    )
    su = store.propose(OWNER, project, "run_a", "character", "苏念", {"name": "苏念", "description": "徒弟"})
    old = store.propose(OWNER, project, "run_a", "character", "老周", {"name": "老周", "description": "旧识"})
    assert isinstance(edge, Proposal) and isinstance(su, Proposal) and isinstance(old, Proposal)
    revision = store.revision(OWNER, project)

    with pytest.raises(ProposalNeedsCharacterError) as needs:
        store.accept_proposal(OWNER, project, edge.proposal_id)
    accepted = store.accept_proposal(OWNER, project, su.proposal_id)
    store.add_character(OWNER, project, CharacterIn(name="林舟"))
    joined = store.accept_proposal(OWNER, project, edge.proposal_id)
    store.reject_proposal(OWNER, project, old.proposal_id)
    with pytest.raises(ProposalDecidedError):
        store.reject_proposal(OWNER, project, old.proposal_id)

    assert needs.value.names == ["林舟", "苏念"]
    assert (accepted.status, joined.status) == ("accepted", "accepted")
    character = store.character(OWNER, project, accepted.item_id or "")
    assert (character.name, character.origin, character.source_run_id) == ("苏念", "accepted", "run_a")
    assert [r.relationship_id for r in store.relationships(OWNER, project)] == [joined.item_id]
    assert [p.status for p in store.proposals(OWNER, project)] == ["accepted", "accepted", "rejected"]
    assert store.proposals(OWNER, project, "pending") == []
    assert store.revision(OWNER, project) == revision + 3, "two accepted items and the writer's character"


def test_chapters_reorder_against_the_lists_tag_and_restore_a_kept_version(backend: WritingBackend) -> None:
    store = backend.projects()
    project = store.create_project(OWNER, ProjectIn(name="长夜")).project_id
    ids = [store.add_chapter(OWNER, project, ChapterIn(title=t, content=t * 2)).chapter_id for t in "甲乙丙"]
    tag = chapter_list_tag(store.chapters(OWNER, project))
    store.update_chapter(OWNER, project, ids[0], ChapterIn(title="甲", content="改过"), if_match=1)

    with pytest.raises(StaleVersionError) as stale:
        store.reorder_chapters(OWNER, project, ids[::-1], if_match=tag)
    with pytest.raises(ChapterOrderError):
        store.reorder_chapters(OWNER, project, ids[:2])
    reordered = store.reorder_chapters(OWNER, project, ids[::-1], chapter_list_tag(store.chapters(OWNER, project)))
    restored = store.restore_chapter_version(OWNER, project, ids[0], 1, if_match=2)

    assert stale.value.kind == "chapter_list"
    assert [(c.position, c.title) for c in reordered] == [(1, "丙"), (2, "乙"), (3, "甲")]
    assert (restored.content, restored.version, restored.position) == ("甲甲", 3, 3)
    versions = store.chapter_versions(OWNER, project, ids[0])
    assert [(v.number, v.source, v.restored_from) for v in versions] == [
        (3, "restore", 1),
        (2, "manual", None),
        (1, "manual", None),
    ]


def test_a_project_is_deleted_at_the_revision_seen_with_everything_in_it(backend: WritingBackend) -> None:
    projects, sessions = backend.projects(), backend.sessions(keep=5)
    project = projects.create_project(OWNER, ProjectIn(name="长夜")).project_id
    chapter = projects.add_chapter(OWNER, project, ChapterIn(title="雨夜", content="门开了。"))
    projects.propose(OWNER, project, "run_a", "character", "苏念", {"name": "苏念", "description": ""})

    def turn(n: int) -> TurnIn:
        intent = WritingIntent.REVISE_CHAPTER
        return TurnIn(
            owner=OWNER, project_id=project, session_id="s", run_id=f"r{n}", text="写", answer="好", intent=intent
        )

    exists = partial(projects.has_project, OWNER, project)
    assert sessions.record(turn(1), exists) == 1
    with pytest.raises(StaleVersionError):
        projects.delete_project(OWNER, project, if_match=0)
    projects.delete_project(OWNER, project, if_match=1)

    assert sessions.forget_project(OWNER, project) == 1
    assert sessions.record(turn(2), exists) == 0, "a turn of a deleted project is not kept"
    assert sessions.turns(OWNER, project, "s") == []
    with pytest.raises(NotFoundError):
        projects.chapter_versions(OWNER, project, chapter.chapter_id)
    assert projects.projects(OWNER) == []
