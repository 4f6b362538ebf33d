"""The versions a project's chapters keep (`chapter_versions` in the projects database): every write of a chapter's
text adds one, numbered as the chapter's `version`, with its summary (`stores.chapter_summaries`), what produced it
(`manual`, `draft`, `revision`, `restore`), the writing run it came from and when. A chapter keeps its last
`KEPT_VERSIONS`; they go with it when it is deleted. These helpers run inside a `ProjectStore` transaction that
already holds the write lock (`stores.writing_db`)."""

import sqlite3

from models.writing.chapters import ChapterVersion, ChapterVersionInfo, VersionSource
from models.writing.projects import ChapterIn
from stores.writing_db import Connection

KEPT_VERSIONS = 100
"""How many versions a chapter keeps (the oldest go first): 100 × a 100 000-character chapter bounds one chapter's
history at about 30 MB of UTF-8."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS chapter_versions (
    chapter_id TEXT NOT NULL REFERENCES chapters(id) ON DELETE CASCADE, number INTEGER NOT NULL,
    title TEXT NOT NULL, content TEXT NOT NULL, source TEXT NOT NULL, run_id TEXT, restored_from INTEGER,
    created_at TEXT NOT NULL, PRIMARY KEY (chapter_id, number)) WITHOUT ROWID;
"""
_INFO = "number, title, length(content) AS chars, source, run_id, restored_from, created_at"


class VersionNotFoundError(KeyError):
    """The chapter has no version of this number (never had, or it is older than the ones kept)."""

    def __init__(self, chapter_id: str, number: int) -> None:
        super().__init__(number)
        self.chapter_id = chapter_id
        self.number = number


def migrate(db: sqlite3.Connection) -> None:
    """A chapter of a SQLite database made before versions were kept gets its text as its first version."""
    db.execute(
        "INSERT INTO chapter_versions (chapter_id, number, title, content, source, created_at) "
        "SELECT c.id, c.version, c.title, c.content, 'manual', c.updated_at FROM chapters c "
        "WHERE NOT EXISTS (SELECT 1 FROM chapter_versions v WHERE v.chapter_id = c.id)"
    )


def keep(
    db: Connection,
    chapter_id: str,
    source: VersionSource,
    run_id: str | None = None,
    restored_from: int | None = None,
) -> None:
    """The chapter's text as it now stands (its current `version`), kept; versions past `KEPT_VERSIONS` dropped."""
    db.execute(
        "INSERT INTO chapter_versions "
        "(chapter_id, number, title, content, summary, source, run_id, restored_from, created_at) "
        "SELECT id, version, title, content, summary, ?, ?, CAST(? AS INTEGER), updated_at FROM chapters WHERE id = ?",
        (source, run_id, restored_from, chapter_id),
    )
    db.execute(
        "DELETE FROM chapter_versions WHERE chapter_id = ? AND number <= "
        "(SELECT version FROM chapters WHERE id = ?) - ?",
        (chapter_id, chapter_id, KEPT_VERSIONS),
    )


def chapter_begun_by(db: Connection, project_id: str, run_id: str) -> str | None:
    """The chapter of the project whose first version came from the run `run_id` (an earlier apply of it), if any."""
    row = db.execute(
        "SELECT v.chapter_id FROM chapter_versions v JOIN chapters c ON c.id = v.chapter_id "
        "WHERE c.project_id = ? AND v.run_id = ? AND v.number = 1",
        (project_id, run_id),
    ).fetchone()
    if row is None:
        return None
    (chapter_id,) = row
    return str(chapter_id)


def last_is_from(db: Connection, chapter_id: str, run_id: str, chapter: ChapterIn) -> bool:
    """Whether the chapter's current version came from the run `run_id` with this title and text (an apply of that
    run already made it)."""
    row = db.execute(
        "SELECT 1 FROM chapter_versions v JOIN chapters c ON c.id = v.chapter_id AND v.number = c.version "
        "WHERE c.id = ? AND v.run_id = ? AND v.title = ? AND v.content = ?",
        (chapter_id, run_id, chapter.title, chapter.content),
    ).fetchone()
    return row is not None


def listed(db: Connection, chapter_id: str) -> list[ChapterVersionInfo]:
    """The chapter's versions, newest first, without their texts."""
    rows = db.execute(
        f"SELECT {_INFO} FROM chapter_versions WHERE chapter_id = ? ORDER BY number DESC", (chapter_id,)
    ).fetchall()
    return [ChapterVersionInfo.model_validate(dict(row)) for row in rows]


def one(db: Connection, chapter_id: str, number: int) -> ChapterVersion:
    row = db.execute(
        f"SELECT {_INFO}, content, summary FROM chapter_versions WHERE chapter_id = ? AND number = ?",
        (chapter_id, number),
    ).fetchone()
    if row is None:
        raise VersionNotFoundError(chapter_id, number)
    return ChapterVersion.model_validate(dict(row))
