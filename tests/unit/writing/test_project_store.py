"""The writer's project store on its own, on SQLite and on PostgreSQL (`backend`): what the retrieval index gets
from `documents`, the revision that every change (and no read) raises, relationships kept one per pair; and a
SQLite database made by the first release opened by this one with nothing lost."""

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from models.writing.projects import (
    ChapterIn,
    CharacterIn,
    PlotLoopIn,
    ProjectIn,
    RelationshipIn,
    StyleSampleIn,
    WorldNoteIn,
)
from models.writing.proposals import AlreadyThere, Proposal
from stores.chapter_versions import KEPT_VERSIONS
from stores.writing_projects import NotFoundError, PairTakenError, ProjectStore, StaleVersionError
from tests.unit.writing.conftest import WritingBackend

OWNER = "alice"
WRITTEN = "2024-05-01T00:00:00+00:00"

FIRST_RELEASE_SCHEMA = """
CREATE TABLE projects (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, genre TEXT, created_at TEXT NOT NULL);
CREATE TABLE chapters (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    position INTEGER NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE characters (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name TEXT NOT NULL, description TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX chapters_by_project ON chapters(project_id, position);
CREATE INDEX characters_by_project ON characters(project_id, name);
CREATE INDEX projects_by_owner ON projects(owner, created_at);
"""


@pytest.fixture
def store(backend: WritingBackend) -> ProjectStore:
    return backend.projects()


def new_project(store: ProjectStore) -> str:
    return store.create_project(OWNER, ProjectIn(name="长夜")).project_id


def test_documents_hold_every_item_of_the_project_as_the_index_reads_it(store: ProjectStore) -> None:
    project = new_project(store)
    store.add_chapter(OWNER, project, ChapterIn(title="雨夜", content="林舟推开门。"))
    second = store.add_chapter(OWNER, project, ChapterIn(title="码头", content="苏念在等。"))
    lin = store.add_character(OWNER, project, CharacterIn(name="林舟", description="退役侦探"))
    su = store.add_character(OWNER, project, CharacterIn(name="苏念"))
    sample = store.add_style_sample(OWNER, project, StyleSampleIn(title="开篇", text="雨下了一整夜。"))
    note = store.add_world_note(OWNER, project, WorldNoteIn(title="临江城", content="终年多雨的港城"))
    jade = store.add_plot_loop(
        OWNER, project, PlotLoopIn(title="玉佩", description="苏念的玉佩来历不明", planted_in_chapter=3)
    )
    letter = store.add_plot_loop(
        OWNER,
        project,
        PlotLoopIn(title="旧信", status="resolved", planted_in_chapter=1, resolved_in_chapter=2),
    )
    bond, _ = store.upsert_relationship(
        OWNER, project, RelationshipIn(source="林舟", target="苏念", kind="师徒", description="十年前收她为徒")
    )

    documents = [d.model_dump(by_alias=False) for d in store.documents(OWNER, project)]

    assert [(d["kind"], d["text"]) for d in documents] == [
        ("chapter", "林舟推开门。"),
        ("chapter", "苏念在等。"),
        ("character", "林舟：退役侦探"),
        ("character", "苏念"),
        ("style_sample", "雨下了一整夜。"),
        ("world_note", "终年多雨的港城"),
        ("plot_loop", "伏笔「旧信」，已回收（resolved），第1章埋下，第2章回收"),
        ("plot_loop", "伏笔「玉佩」，未回收（open），第3章埋下：苏念的玉佩来历不明"),
        ("relationship", "林舟 — 师徒 — 苏念：十年前收她为徒"),
    ]
    assert [d["ref_id"] for d in documents] == [
        store.chapters(OWNER, project)[0].chapter_id,
        second.chapter_id,
        lin.character_id,
        su.character_id,
        sample.style_sample_id,
        note.world_note_id,
        letter.plot_loop_id,
        jade.plot_loop_id,
        bond.relationship_id,
    ]
    assert [d["chapter_position"] for d in documents] == [1, 2, *[None] * 7]
    assert [d["title"] for d in documents][4:] == ["开篇", "临江城", "旧信", "玉佩", "林舟 — 师徒 — 苏念"]


def test_every_change_raises_the_revision_and_reads_do_not(store: ProjectStore) -> None:
    project = new_project(store)
    revisions = [store.revision(OWNER, project)]

    def changed() -> bool:
        revisions.append(store.revision(OWNER, project))
        return revisions[-1] == revisions[-2] + 1

    chapter = store.add_chapter(OWNER, project, ChapterIn(title="雨夜"))
    assert changed()
    store.update_chapter(OWNER, project, chapter.chapter_id, ChapterIn(title="雨夜", content="门开了。"))
    assert changed()
    note = store.add_world_note(OWNER, project, WorldNoteIn(title="临江城"))
    assert changed()
    store.delete_world_note(OWNER, project, note.world_note_id)
    assert changed()
    store.upsert_relationship(OWNER, project, RelationshipIn(source="林舟", target="苏念", kind="师徒"))
    assert changed()

    store.chapters(OWNER, project)
    store.documents(OWNER, project)
    store.project(OWNER, project)
    store.upsert_relationship(OWNER, project, RelationshipIn(source="林舟", target="苏念", kind="师徒"))
    assert not changed()  # neither reads nor an upsert that changes nothing
    with pytest.raises(NotFoundError):
        store.update_chapter(OWNER, project, "chap_nope", ChapterIn(title="x"))
    assert not changed()  # a failed change is rolled back, revision and all
    assert store.project(OWNER, project).revision == revisions[-1] == 5


def test_a_relationship_is_one_per_pair_whichever_way_round(store: ProjectStore) -> None:
    project = new_project(store)

    first, added = store.upsert_relationship(OWNER, project, RelationshipIn(source="林舟", target="苏念", kind="师徒"))
    again, changed = store.upsert_relationship(
        OWNER, project, RelationshipIn(source=" 苏念", target="林舟 ", kind="师徒", description="她是他的徒弟")
    )
    same, unchanged = store.upsert_relationship(
        OWNER, project, RelationshipIn(source="苏念", target="林舟", kind="师徒", description="她是他的徒弟")
    )

    assert (added, changed, unchanged) == ("added", "changed", "unchanged")
    assert first.relationship_id == again.relationship_id == same.relationship_id
    assert (again.source, again.target, again.description) == ("苏念", "林舟", "她是他的徒弟")
    assert [r.relationship_id for r in store.relationships(OWNER, project)] == [first.relationship_id]


def test_a_relationship_cannot_be_moved_onto_a_pair_that_has_one(store: ProjectStore) -> None:
    project = new_project(store)
    store.upsert_relationship(OWNER, project, RelationshipIn(source="林舟", target="苏念", kind="师徒"))
    other, _ = store.upsert_relationship(OWNER, project, RelationshipIn(source="林舟", target="老周", kind="旧识"))
    revision = store.revision(OWNER, project)

    with pytest.raises(PairTakenError):
        store.update_relationship(
            OWNER, project, other.relationship_id, RelationshipIn(source="苏念", target="林舟", kind="仇人")
        )

    assert [(r.target, r.kind) for r in store.relationships(OWNER, project)] == [("老周", "旧识"), ("苏念", "师徒")]
    assert store.revision(OWNER, project) == revision


def test_items_of_another_owner_are_not_found(store: ProjectStore) -> None:
    project = new_project(store)
    loop = store.add_plot_loop(OWNER, project, PlotLoopIn(title="玉佩"))

    with pytest.raises(NotFoundError) as missing:
        store.plot_loop("bob", project, loop.plot_loop_id)
    with pytest.raises(NotFoundError):
        store.delete_plot_loop("bob", project, loop.plot_loop_id)
    with pytest.raises(NotFoundError) as wrong_item:
        store.style_sample(OWNER, project, loop.plot_loop_id)

    assert missing.value.kind == "project"
    assert wrong_item.value.kind == "style_sample"
    assert store.plot_loops(OWNER, project) == [loop]


def test_chapters_added_at_once_get_distinct_numbers(backend: WritingBackend) -> None:
    gateway, worker = backend.projects(), backend.projects()  # two processes' stores on one database
    project = new_project(gateway)

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(
            pool.map(lambda n: (gateway, worker)[n % 2].add_chapter(OWNER, project, ChapterIn(title=f"{n}")), range(24))
        )

    assert sorted(c.position for c in gateway.chapters(OWNER, project)) == list(range(1, 25))
    assert gateway.revision(OWNER, project) == 24


def test_a_database_of_the_first_release_keeps_its_projects_and_gains_the_new_kinds(tmp_path: Path) -> None:
    path = tmp_path / "projects.sqlite3"
    with sqlite3.connect(path) as old:
        old.executescript(FIRST_RELEASE_SCHEMA)
        old.execute("INSERT INTO projects VALUES ('proj_old', ?, '长夜', '悬疑', ?)", (OWNER, WRITTEN))
        old.execute("INSERT INTO chapters VALUES ('chap_old', 'proj_old', 1, '雨夜', '林舟推开门。', ?)", (WRITTEN,))
        old.execute("INSERT INTO characters VALUES ('char_old', 'proj_old', '林舟', '退役侦探', ?)", (WRITTEN,))
    old.close()

    store = ProjectStore(path)
    before = store.project(OWNER, "proj_old")
    loop = store.add_plot_loop(OWNER, "proj_old", PlotLoopIn(title="玉佩", planted_in_chapter=1))
    store.upsert_relationship(OWNER, "proj_old", RelationshipIn(source="林舟", target="苏念", kind="师徒"))
    chapter = store.add_chapter(OWNER, "proj_old", ChapterIn(title="码头"))
    ProjectStore(path)  # opening it again changes nothing

    assert (before.chapters, before.characters, before.revision) == (1, 1, 0)
    assert store.chapter(OWNER, "proj_old", "chap_old").content == "林舟推开门。"
    assert store.character(OWNER, "proj_old", "char_old").description == "退役侦探"
    assert chapter.position == 2
    assert store.plot_loops(OWNER, "proj_old") == [loop]
    after = store.project(OWNER, "proj_old")
    assert (after.revision, after.chapters, after.plot_loops, after.relationships) == (3, 2, 1, 1)
    assert [d.kind for d in store.documents(OWNER, "proj_old")] == [
        "chapter",
        "chapter",
        "character",
        "plot_loop",
        "relationship",
    ]


def test_a_database_without_versions_gives_each_chapter_its_text_as_version_1(tmp_path: Path) -> None:
    path = tmp_path / "projects.sqlite3"
    with sqlite3.connect(path) as old:
        old.executescript(FIRST_RELEASE_SCHEMA)
        old.execute("INSERT INTO projects VALUES ('proj_old', ?, '长夜', '悬疑', ?)", (OWNER, WRITTEN))
        old.execute("INSERT INTO chapters VALUES ('chap_old', 'proj_old', 1, '雨夜', '林舟推开门。', ?)", (WRITTEN,))
    old.close()

    store = ProjectStore(path)
    ProjectStore(path)  # opening it again adds no second version 1
    first = store.chapter(OWNER, "proj_old", "chap_old")
    changed = store.update_chapter(OWNER, "proj_old", "chap_old", ChapterIn(title="雨夜", content="门开着。"), 1)

    assert first.version == 1 and changed.version == 2
    assert [(v.number, v.source, v.chars) for v in store.chapter_versions(OWNER, "proj_old", "chap_old")] == [
        (2, "manual", 4),
        (1, "manual", 6),
    ]
    assert store.chapter_version(OWNER, "proj_old", "chap_old", 1).content == "林舟推开门。"
    with pytest.raises(StaleVersionError):
        store.update_chapter(OWNER, "proj_old", "chap_old", ChapterIn(title="雨夜", content="又改了"), 1)


def test_a_chapter_keeps_its_last_versions_only(store: ProjectStore) -> None:
    project = new_project(store)
    chapter = store.add_chapter(OWNER, project, ChapterIn(title="雨夜", content="0"))
    for n in range(1, KEPT_VERSIONS + 5):
        store.update_chapter(OWNER, project, chapter.chapter_id, ChapterIn(title="雨夜", content=f"{n}"))

    numbers = [v.number for v in store.chapter_versions(OWNER, project, chapter.chapter_id)]

    assert len(numbers) == KEPT_VERSIONS and numbers[0] == KEPT_VERSIONS + 5 and numbers[-1] == 6


def test_a_chapter_placed_before_others_moves_them_and_the_plot_loops_that_name_them(store: ProjectStore) -> None:
    project = new_project(store)
    store.add_chapter(OWNER, project, ChapterIn(title="雨夜"))
    store.add_chapter(OWNER, project, ChapterIn(title="码头"))
    loop = store.add_plot_loop(OWNER, project, PlotLoopIn(title="玉佩", planted_in_chapter=1, resolved_in_chapter=2))

    store.add_chapter(OWNER, project, ChapterIn(title="序章"), position=1)
    store.add_chapter(OWNER, project, ChapterIn(title="尾声"), position=99)

    assert [(c.position, c.title) for c in store.chapters(OWNER, project)] == [
        (1, "序章"),
        (2, "雨夜"),
        (3, "码头"),
        (4, "尾声"),
    ]
    moved = store.plot_loop(OWNER, project, loop.plot_loop_id)
    assert (moved.planted_in_chapter, moved.resolved_in_chapter, moved.version) == (2, 3, 2)


def test_what_the_project_or_a_pending_proposal_says_already_is_not_proposed_again(store: ProjectStore) -> None:
    project = new_project(store)
    note = store.add_world_note(OWNER, project, WorldNoteIn(title="城", content="沧石关\n  三面环山。"))
    hero = store.add_character(OWNER, project, CharacterIn(name="林舟", description="主角"))
    same_text = {"title": "设定：别的标题", "content": " 沧石关 三面环山。\n"}
    pending = store.propose(OWNER, project, "run_a", "character", "苏念", {"name": "苏念", "description": "徒弟"})
    assert isinstance(pending, Proposal)

    filed = [
        store.propose(OWNER, project, "run_b", "world_note", "设定", same_text),
        store.propose(OWNER, project, "run_b", "character", "林舟", {"name": "林舟", "description": "别的"}),
        store.propose(OWNER, project, "run_b", "character", "苏念", {"name": " 苏念", "description": "另一个"}),
    ]

    assert [(f.kind, f.existing_id) for f in filed if isinstance(f, AlreadyThere)] == [
        ("world_note", note.world_note_id),
        ("character", hero.character_id),
        ("character", pending.proposal_id),
    ]
    assert [p.proposal_id for p in store.proposals(OWNER, project)] == [pending.proposal_id]
    retried = store.propose(OWNER, project, "run_a", "character", "苏念", {"name": "苏念", "description": "徒弟"})
    assert isinstance(retried, Proposal) and retried.proposal_id == pending.proposal_id, "a retry finds its own"


def test_an_edge_already_pending_is_labelled_in_the_language_of_its_kind(store: ProjectStore) -> None:
    project = new_project(store)
    edges = [
        {"source": "Jules Vale", "target": "Mara", "kind": "rival", "description": "an old debt"},
        {"source": "林舟", "target": "苏念", "kind": "师徒", "description": "十年前收她为徒"},
    ]
    for n, edge in enumerate(edges):
        store.propose(OWNER, project, "run_a", "relationship", f"edge {n}", edge)

    again = [store.propose(OWNER, project, "run_b", "relationship", f"edge {n}", e) for n, e in enumerate(edges)]

    assert [a.label for a in again if isinstance(a, AlreadyThere)] == ["Jules Vale—Mara (rival)", "林舟—苏念（师徒）"]
