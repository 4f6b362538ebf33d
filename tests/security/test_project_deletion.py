"""Issue 28: deleting a project deletes what hangs off it, on disk and through the stores: its chapters' versions
and summaries, its proposals, its conversations' turns and its retrieval index table (with its revision and lock
files), while another project's stay. A turn a run still in flight records after the delete is not kept."""

import sqlite3
from pathlib import Path

import lancedb

from activities.writing.memory import ConversationMemory
from models.writing.sessions import TurnIn
from stores.writing_projects import ProjectStore
from stores.writing_sessions import SessionStore
from tests.api.conftest import ALICE, Gateway
from tests.security.test_writing_sessions import chat, project_with_chapters


def rows_of(database: Path, names: list[str]) -> list[str]:
    """The tables of a SQLite database with a row naming any of `names` (a project's id, its chapters' ids)."""
    with sqlite3.connect(database) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return [
            table
            for table in tables
            if any(
                isinstance(value, str) and any(name in value for name in names)
                for row in db.execute(f"SELECT * FROM {table}")
                for value in row
            )
        ]


def on_disk(data_dir: Path, project_id: str, chapter_ids: list[str]) -> list[str]:
    """Every trace of the project under `data_dir`: rows of the writing databases, index tables and files."""
    writing = data_dir / "writing"
    names = [project_id, *chapter_ids]
    traces = [f"{db.name}:{table}" for db in sorted(writing.glob("*.sqlite3")) for table in rows_of(db, names)]
    index = data_dir / "lancedb" / "writing"
    traces += [name for name in lancedb.connect(index).list_tables().tables if project_id in name]
    traces += sorted(str(path.relative_to(index)) for path in index.rglob(f"*{project_id}*"))
    return traces


async def test_deleting_a_project_deletes_its_versions_proposals_turns_and_index(keyed: Gateway) -> None:
    http = keyed.http
    doomed = await project_with_chapters(keyed, ALICE)
    kept = await project_with_chapters(keyed, ALICE)
    chapters: dict[str, list[str]] = {}
    for project in (doomed, kept):
        base = f"/v1/writing/projects/{project}"
        listed = (await http.get(f"{base}/chapters", headers=ALICE)).json()
        chapters[project] = [c["chapterId"] for c in listed]
        chapter = listed[0]
        edit = {"title": chapter["title"], "content": "雨下了一夜。林舟没有睡。"}
        await http.put(f"{base}/chapters/{chapter['chapterId']}", json=edit, headers=ALICE)
        await chat(keyed, project, "写一段林舟在雨夜码头等人的场景", ALICE)
        await chat(keyed, project, "帮我设定这个城市的世界观", ALICE)
    data_dir = keyed.settings.data_dir
    before = on_disk(data_dir, doomed, chapters[doomed])
    kept_before = on_disk(data_dir, kept, chapters[kept])
    for trace in ("projects.sqlite3:chapter_versions", "projects.sqlite3:proposals", "sessions.sqlite3:turns"):
        assert trace in before, before
    assert any(trace.startswith("writing_") for trace in before), "the run built the project's index table"

    deleted = await http.delete(f"/v1/writing/projects/{doomed}", headers=ALICE)

    assert deleted.status_code == 204
    assert on_disk(data_dir, doomed, chapters[doomed]) == []
    assert on_disk(data_dir, kept, chapters[kept]) == kept_before, "another project's data stays"
    turns = await http.get(f"/v1/writing/projects/{kept}/sessions/shared/turns", headers=ALICE)
    assert len(turns.json()["turns"]) == 2

    late = TurnIn(owner="alice", project_id=doomed, session_id="shared", run_id="run-late", text="晚到", answer="…")
    memory = ConversationMemory(SessionStore.under(data_dir, keep=20), 100, ProjectStore.under(data_dir))
    assert (await memory.record_turn(late)).kept == 0
    assert on_disk(data_dir, doomed, chapters[doomed]) == [], (
        "a run still in flight records no turn on a deleted project"
    )
