"""The schema of the writers' projects database (`stores.writing_projects`), on either database
(`stores.writing_db`). SQLite: created when a store opens the file, and a file made by an earlier version gains
the new tables and columns then (its chapters get their text as version 1, and summaries); nothing in it is lost.
PostgreSQL: `MIGRATIONS`, applied in order, each once, when a store opens the database; a change of the schema is
a new migration appended to the list (and, for SQLite, a new table or a column in `_ADDED_COLUMNS`)."""

import sqlite3

from stores import chapter_versions, writing_proposals
from stores.chapter_summaries import summarize
from stores.writing_db import Database, SqliteDatabase

_ITEM = "id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS projects (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, genre TEXT, created_at TEXT NOT NULL,
    revision INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS chapters (
    {_ITEM}, position INTEGER NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS characters (
    {_ITEM}, name TEXT NOT NULL, description TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plot_loops (
    {_ITEM}, title TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL,
    planted_in_chapter INTEGER, resolved_in_chapter INTEGER, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS style_samples (
    {_ITEM}, title TEXT NOT NULL, text TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS world_notes (
    {_ITEM}, title TEXT NOT NULL, content TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS relationships (
    {_ITEM}, source TEXT NOT NULL, target TEXT NOT NULL, kind TEXT NOT NULL, description TEXT NOT NULL,
    updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chapters_by_project ON chapters(project_id, position);
CREATE INDEX IF NOT EXISTS characters_by_project ON characters(project_id, name);
CREATE INDEX IF NOT EXISTS plot_loops_by_project ON plot_loops(project_id);
CREATE INDEX IF NOT EXISTS style_samples_by_project ON style_samples(project_id);
CREATE INDEX IF NOT EXISTS world_notes_by_project ON world_notes(project_id);
CREATE UNIQUE INDEX IF NOT EXISTS relationships_by_pair
    ON relationships(project_id, min(source, target), max(source, target));
CREATE INDEX IF NOT EXISTS projects_by_owner ON projects(owner, created_at);
"""
_PROPOSED_KINDS = ("characters", "world_notes", "relationships", "plot_loops")
"""The tables whose items an agent can propose; each item says where it came from (`origin`, `source_run_id`)."""
_ADDED_COLUMNS = [
    ("projects", "revision", "INTEGER NOT NULL DEFAULT 0"),
    *(
        (table, "version", "INTEGER NOT NULL DEFAULT 1")
        for table in ("chapters", "characters", "plot_loops", "style_samples", "world_notes", "relationships")
    ),
    ("chapters", "summary", "TEXT NOT NULL DEFAULT ''"),
    ("chapter_versions", "summary", "TEXT NOT NULL DEFAULT ''"),
    *(
        (table, column, declaration)
        for table in _PROPOSED_KINDS
        for column, declaration in (("origin", "TEXT NOT NULL DEFAULT 'writer'"), ("source_run_id", "TEXT"))
    ),
]
"""Columns added to tables of the first release (`CREATE TABLE IF NOT EXISTS` leaves an existing table as it was)."""

_PG_ITEM = "id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE"
_PG_PROPOSED = "origin TEXT NOT NULL DEFAULT 'writer', source_run_id TEXT"
_PG_ADDED = "rowid BIGINT GENERATED ALWAYS AS IDENTITY"
"""The order items of some kinds are listed in (as they were added: SQLite's `rowid`)."""
MIGRATIONS = (
    f"""
CREATE TABLE projects (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, genre TEXT, created_at TEXT COLLATE "C" NOT NULL,
    revision INTEGER NOT NULL DEFAULT 0);
CREATE TABLE chapters (
    {_PG_ITEM}, position INTEGER NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL,
    summary TEXT NOT NULL DEFAULT '', version INTEGER NOT NULL DEFAULT 1, updated_at TEXT NOT NULL);
CREATE TABLE characters (
    {_PG_ITEM}, name TEXT COLLATE "C" NOT NULL, description TEXT NOT NULL, {_PG_PROPOSED},
    version INTEGER NOT NULL DEFAULT 1, updated_at TEXT NOT NULL);
CREATE TABLE plot_loops (
    {_PG_ITEM}, title TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL,
    planted_in_chapter INTEGER, resolved_in_chapter INTEGER, {_PG_PROPOSED}, version INTEGER NOT NULL DEFAULT 1,
    updated_at TEXT NOT NULL, {_PG_ADDED});
CREATE TABLE style_samples (
    {_PG_ITEM}, title TEXT NOT NULL, text TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 1,
    updated_at TEXT NOT NULL, {_PG_ADDED});
CREATE TABLE world_notes (
    {_PG_ITEM}, title TEXT NOT NULL, content TEXT NOT NULL, {_PG_PROPOSED}, version INTEGER NOT NULL DEFAULT 1,
    updated_at TEXT NOT NULL, {_PG_ADDED});
CREATE TABLE relationships (
    {_PG_ITEM}, source TEXT COLLATE "C" NOT NULL, target TEXT COLLATE "C" NOT NULL, kind TEXT NOT NULL,
    description TEXT NOT NULL, {_PG_PROPOSED}, version INTEGER NOT NULL DEFAULT 1, updated_at TEXT NOT NULL);
CREATE TABLE chapter_versions (
    chapter_id TEXT NOT NULL REFERENCES chapters(id) ON DELETE CASCADE, number INTEGER NOT NULL,
    title TEXT NOT NULL, content TEXT NOT NULL, summary TEXT NOT NULL DEFAULT '', source TEXT NOT NULL,
    run_id TEXT, restored_from INTEGER, created_at TEXT NOT NULL, PRIMARY KEY (chapter_id, number));
CREATE TABLE proposals (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    run_id TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL, item TEXT NOT NULL,
    before TEXT, target_id TEXT, target_version INTEGER, item_id TEXT, created_at TEXT COLLATE "C" NOT NULL,
    decided_at TEXT, {_PG_ADDED}, UNIQUE (project_id, run_id, kind, key));
CREATE INDEX chapters_by_project ON chapters(project_id, position);
CREATE INDEX characters_by_project ON characters(project_id, name);
CREATE INDEX plot_loops_by_project ON plot_loops(project_id);
CREATE INDEX style_samples_by_project ON style_samples(project_id);
CREATE INDEX world_notes_by_project ON world_notes(project_id);
CREATE UNIQUE INDEX relationships_by_pair
    ON relationships(project_id, LEAST(source, target), GREATEST(source, target));
CREATE INDEX projects_by_owner ON projects(owner, created_at);
CREATE INDEX proposals_by_project ON proposals(project_id, status, created_at);
""",
)
"""PostgreSQL's schema, one migration after another. Text columns that lists are sorted by compare as SQLite's do
(`COLLATE "C"`: by code point, whatever the database's locale)."""


def prepare(database: Database) -> None:
    """The schema as this version wants it, made or brought up to date (at start, never at a first request)."""
    if not isinstance(database, SqliteDatabase):
        database.migrate("projects", MIGRATIONS)
        return
    with database.raw() as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(_SCHEMA + chapter_versions.SCHEMA + writing_proposals.SCHEMA)
        db.execute("BEGIN IMMEDIATE")  # the gateway and the worker may open an old database at once
        for table, column, declaration in _ADDED_COLUMNS:
            if column not in {row["name"] for row in db.execute(f"PRAGMA table_info({table})")}:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        chapter_versions.migrate(db)
        _summarise_unsummarised(db)


def _summarise_unsummarised(db: sqlite3.Connection) -> None:
    """Chapters saved before summaries were kept get theirs (once: a chapter with text always has one)."""
    rows = db.execute("SELECT id, content FROM chapters WHERE summary = '' AND trim(content) != ''").fetchall()
    db.executemany("UPDATE chapters SET summary = ? WHERE id = ?", [(summarize(r["content"]), r["id"]) for r in rows])
