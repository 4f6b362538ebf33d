"""The writers' projects, chapters and characters: a small SQLite document store under
`DATA_DIR/writing/projects.sqlite3`, shared by the gateway (which edits them) and the worker (whose agents read
them). Every call names the owning principal: a project of another principal is not found, like one that does
not exist. The methods block (one short connection each, WAL so readers never wait for a writer); async callers
use the `a`-prefixed ones, which run them in a thread."""

import asyncio
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import ParamSpec, TypeVar

from models.writing.projects import Chapter, ChapterIn, Character, CharacterIn, Project, ProjectIn

P = ParamSpec("P")
T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS projects (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, genre TEXT, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chapters (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    position INTEGER NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS characters (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name TEXT NOT NULL, description TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chapters_by_project ON chapters(project_id, position);
CREATE INDEX IF NOT EXISTS characters_by_project ON characters(project_id, name);
CREATE INDEX IF NOT EXISTS projects_by_owner ON projects(owner, created_at);
"""


class NotFoundError(KeyError):
    """No such project, chapter or character for this principal; `kind` says which."""

    def __init__(self, kind: str, item_id: str) -> None:
        super().__init__(item_id)
        self.kind = kind
        self.item_id = item_id


class ProjectStore:
    """Projects and their chapters and characters, per owner."""

    def __init__(self, path: Path) -> None:
        self._path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connection() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)

    @classmethod
    def under(cls, data_dir: Path) -> "ProjectStore":
        return cls(data_dir / "writing" / "projects.sqlite3")

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self._path, timeout=10)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys=ON")
        try:
            with db:  # one transaction: committed on success, rolled back on an error
                yield db
        finally:
            db.close()

    async def run(self, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`method` (one of this store's) in a thread."""
        return await asyncio.to_thread(method, *args, **kwargs)

    # projects

    def create_project(self, owner: str, project: ProjectIn) -> Project:
        project_id = f"proj_{uuid.uuid4().hex[:16]}"
        with self._connection() as db:
            db.execute(
                "INSERT INTO projects VALUES (?, ?, ?, ?, ?)", (project_id, owner, project.name, project.genre, _now())
            )
        return self.project(owner, project_id)

    def project(self, owner: str, project_id: str) -> Project:
        with self._connection() as db:
            row = db.execute(
                "SELECT p.*, (SELECT COUNT(*) FROM chapters WHERE project_id = p.id) AS chapter_count,"
                " (SELECT COUNT(*) FROM characters WHERE project_id = p.id) AS character_count"
                " FROM projects p WHERE p.id = ? AND p.owner = ?",
                (project_id, owner),
            ).fetchone()
        if row is None:
            raise NotFoundError("project", project_id)
        return Project(
            project_id=row["id"],
            name=row["name"],
            genre=row["genre"],
            created_at=row["created_at"],
            chapters=row["chapter_count"],
            characters=row["character_count"],
        )

    def projects(self, owner: str) -> list[Project]:
        with self._connection() as db:
            ids = [
                row["id"] for row in db.execute("SELECT id FROM projects WHERE owner = ? ORDER BY created_at", (owner,))
            ]
        return [self.project(owner, project_id) for project_id in ids]

    # chapters

    def add_chapter(self, owner: str, project_id: str, chapter: ChapterIn) -> Chapter:
        chapter_id = f"chap_{uuid.uuid4().hex[:16]}"
        with self._connection() as db:
            self._require_project(db, owner, project_id)
            (last,) = db.execute(
                "SELECT COALESCE(MAX(position), 0) FROM chapters WHERE project_id = ?", (project_id,)
            ).fetchone()
            db.execute(
                "INSERT INTO chapters VALUES (?, ?, ?, ?, ?, ?)",
                (chapter_id, project_id, last + 1, chapter.title, chapter.content, _now()),
            )
        return self.chapter(owner, project_id, chapter_id)

    def chapters(self, owner: str, project_id: str) -> list[Chapter]:
        with self._connection() as db:
            self._require_project(db, owner, project_id)
            rows = db.execute("SELECT * FROM chapters WHERE project_id = ? ORDER BY position", (project_id,)).fetchall()
        return [_chapter(row) for row in rows]

    def chapter(self, owner: str, project_id: str, chapter_id: str) -> Chapter:
        with self._connection() as db:
            return _chapter(self._item(db, owner, project_id, "chapters", chapter_id))

    def update_chapter(self, owner: str, project_id: str, chapter_id: str, chapter: ChapterIn) -> Chapter:
        with self._connection() as db:
            self._item(db, owner, project_id, "chapters", chapter_id)
            db.execute(
                "UPDATE chapters SET title = ?, content = ?, updated_at = ? WHERE id = ?",
                (chapter.title, chapter.content, _now(), chapter_id),
            )
        return self.chapter(owner, project_id, chapter_id)

    def delete_chapter(self, owner: str, project_id: str, chapter_id: str) -> None:
        with self._connection() as db:
            self._item(db, owner, project_id, "chapters", chapter_id)
            db.execute("DELETE FROM chapters WHERE id = ?", (chapter_id,))

    # characters

    def add_character(self, owner: str, project_id: str, character: CharacterIn) -> Character:
        character_id = f"char_{uuid.uuid4().hex[:16]}"
        with self._connection() as db:
            self._require_project(db, owner, project_id)
            db.execute(
                "INSERT INTO characters VALUES (?, ?, ?, ?, ?)",
                (character_id, project_id, character.name, character.description, _now()),
            )
        return self.character(owner, project_id, character_id)

    def characters(self, owner: str, project_id: str) -> list[Character]:
        with self._connection() as db:
            self._require_project(db, owner, project_id)
            rows = db.execute("SELECT * FROM characters WHERE project_id = ? ORDER BY name", (project_id,)).fetchall()
        return [_character(row) for row in rows]

    def character(self, owner: str, project_id: str, character_id: str) -> Character:
        with self._connection() as db:
            return _character(self._item(db, owner, project_id, "characters", character_id))

    def update_character(self, owner: str, project_id: str, character_id: str, character: CharacterIn) -> Character:
        with self._connection() as db:
            self._item(db, owner, project_id, "characters", character_id)
            db.execute(
                "UPDATE characters SET name = ?, description = ?, updated_at = ? WHERE id = ?",
                (character.name, character.description, _now(), character_id),
            )
        return self.character(owner, project_id, character_id)

    def delete_character(self, owner: str, project_id: str, character_id: str) -> None:
        with self._connection() as db:
            self._item(db, owner, project_id, "characters", character_id)
            db.execute("DELETE FROM characters WHERE id = ?", (character_id,))

    # lookups

    @staticmethod
    def _require_project(db: sqlite3.Connection, owner: str, project_id: str) -> None:
        if db.execute("SELECT 1 FROM projects WHERE id = ? AND owner = ?", (project_id, owner)).fetchone() is None:
            raise NotFoundError("project", project_id)

    def _item(self, db: sqlite3.Connection, owner: str, project_id: str, table: str, item_id: str) -> sqlite3.Row:
        self._require_project(db, owner, project_id)
        row: sqlite3.Row | None = db.execute(
            f"SELECT * FROM {table} WHERE id = ? AND project_id = ?",
            (item_id, project_id),
        ).fetchone()
        if row is None:
            raise NotFoundError(table.removesuffix("s"), item_id)
        return row


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _chapter(row: sqlite3.Row) -> Chapter:
    return Chapter(
        chapter_id=row["id"],
        project_id=row["project_id"],
        position=row["position"],
        title=row["title"],
        content=row["content"],
        updated_at=row["updated_at"],
    )


def _character(row: sqlite3.Row) -> Character:
    return Character(
        character_id=row["id"],
        project_id=row["project_id"],
        name=row["name"],
        description=row["description"],
        updated_at=row["updated_at"],
    )
