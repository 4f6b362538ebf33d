"""Writers racing on one project, on SQLite and on PostgreSQL (`backend`), each through its own store as two
processes would: of two writes that name the same version of an item exactly one wins and the other is refused
(`StaleVersionError`); chapters added, moved and deleted at once keep their numbers 1..n without gaps, and the
project's revision counts every change; a turn recorded while its project is deleted does not outlive it."""

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

from models.writing.projects import ChapterIn, ProjectIn, WorldNoteIn
from models.writing.sessions import TurnIn
from stores.project_removal import ProjectRemoval
from stores.vector_stores import IndexRemoval
from stores.writing_index import remove_project
from stores.writing_projects import ProjectStore, StaleVersionError
from tests.unit.writing.conftest import WritingBackend

OWNER = "alice"


def at_once(*calls: Callable[[], object]) -> list[object]:
    """Each call in a thread of its own, released together; what each returned or raised."""
    start = threading.Barrier(len(calls))

    def run(call: Callable[[], object]) -> object:
        start.wait()
        try:
            return call()
        except Exception as error:
            return error

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(run, calls))


ROUNDS = 5


def test_of_two_writes_of_one_version_exactly_one_wins(backend: WritingBackend) -> None:
    gateway, worker = backend.projects(), backend.projects()
    project = gateway.create_project(OWNER, ProjectIn(name="长夜")).project_id
    note = gateway.add_world_note(OWNER, project, WorldNoteIn(title="临江城", content="多雨")).world_note_id
    chapter = gateway.add_chapter(OWNER, project, ChapterIn(title="雨夜", content="门开了。")).chapter_id

    for n in range(1, ROUNDS + 1):
        outcomes = at_once(
            partial(gateway.update_world_note, OWNER, project, note, WorldNoteIn(title="城", content=f"g{n}"), n),
            partial(worker.update_world_note, OWNER, project, note, WorldNoteIn(title="城", content=f"w{n}"), n),
            partial(worker.update_chapter, OWNER, project, chapter, ChapterIn(title="雨夜", content=f"w{n}"), n),
            partial(gateway.update_chapter, OWNER, project, chapter, ChapterIn(title="雨夜", content=f"g{n}"), n),
        )
        for pair in (outcomes[:2], outcomes[2:]):
            refused = [o for o in pair if isinstance(o, StaleVersionError)]
            assert len(refused) == 1 and refused[0].current == n + 1, pair
            assert len([o for o in pair if not isinstance(o, Exception)]) == 1, pair

    assert gateway.world_note(OWNER, project, note).version == ROUNDS + 1
    versions = gateway.chapter_versions(OWNER, project, chapter)
    assert [v.number for v in versions] == list(range(ROUNDS + 1, 0, -1)), "one kept version per write that won"
    assert gateway.revision(OWNER, project) == 2 + 2 * ROUNDS, "a refused write changes nothing"


def test_chapters_added_moved_and_deleted_at_once_stay_numbered_without_gaps(backend: WritingBackend) -> None:
    stores = [backend.projects(), backend.projects()]
    project = stores[0].create_project(OWNER, ProjectIn(name="长夜")).project_id
    first = [stores[0].add_chapter(OWNER, project, ChapterIn(title=f"old {n}")) for n in range(6)]

    def change(n: int) -> object:
        store: ProjectStore = stores[n % 2]
        if n % 3 == 0:
            return store.add_chapter(OWNER, project, ChapterIn(title=f"front {n}"), position=1)
        if n % 3 == 1:
            return store.add_chapter(OWNER, project, ChapterIn(title=f"end {n}"))
        store.delete_chapter(OWNER, project, first[n // 3].chapter_id)
        return None

    at_once(*(partial(change, n) for n in range(18)))

    chapters = stores[1].chapters(OWNER, project)
    assert [c.position for c in chapters] == list(range(1, 6 + 12 - 6 + 1))
    assert len({c.chapter_id for c in chapters}) == len(chapters)
    assert {c.title for c in chapters} == {f"front {n}" for n in range(0, 18, 3)} | {
        f"end {n}" for n in range(1, 18, 3)
    }
    assert stores[0].revision(OWNER, project) == 6 + 18


def test_a_turn_recorded_while_its_project_is_deleted_goes_with_it(backend: WritingBackend) -> None:
    projects, sessions = backend.projects(), backend.sessions(keep=5)
    project = projects.create_project(OWNER, ProjectIn(name="长夜")).project_id
    removal = ProjectRemoval(projects, sessions, IndexRemoval(partial(remove_project, backend.directory / "index")))
    turn = TurnIn(owner=OWNER, project_id=project, session_id="s", run_id="r1", text="写", answer="好")

    with ThreadPoolExecutor(max_workers=1) as deleting:
        started: list[Future[None]] = []

        def exists_while_it_is_deleted() -> bool:
            """Asked inside the record's transaction: the project is there, and its deletion starts meanwhile."""
            found = projects.has_project(OWNER, project)
            started.append(deleting.submit(removal.delete, OWNER, project))
            time.sleep(0.5)  # the deletion goes as far as it can before the turn is written
            return found

        kept = sessions.record(turn, exists_while_it_is_deleted)
        started[0].result()

    assert kept == 1
    assert sessions.turns(OWNER, project, "s") == [], "the deletion waited for the record, then deleted its turn"
