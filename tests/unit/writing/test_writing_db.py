"""The database layer under the writers' stores (`stores.writing_db`) on PostgreSQL: the schema is migrated once
when stores of several processes open one database at once, and again finds nothing to do; `WRITING_DB_URL`
takes a PostgreSQL URL or nothing, and the factories open the stores it names."""

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from pydantic import ValidationError

from models.settings import Settings
from models.writing.projects import ProjectIn
from stores.writing_db import PostgresDatabase
from stores.writing_projects import ProjectStore
from stores.writing_sessions import SessionStore
from stores.writing_stores import open_project_store, open_session_store


def test_stores_opening_one_database_at_once_migrate_it_once(postgres_database: str) -> None:
    start = threading.Barrier(6)

    def open_store(n: int) -> ProjectStore | SessionStore:
        start.wait()
        database = PostgresDatabase(postgres_database)
        return ProjectStore(database) if n % 2 else SessionStore(database, keep=5)

    with ThreadPoolExecutor(max_workers=6) as pool:
        stores = list(pool.map(open_store, range(6)))
    try:
        with psycopg.connect(postgres_database) as db:
            applied = db.execute("SELECT component, version FROM schema_migrations ORDER BY 1, 2").fetchall()
        assert applied == [("projects", 1), ("sessions", 1)]
        project = stores[1]
        assert isinstance(project, ProjectStore)
        assert project.create_project("alice", ProjectIn(name="长夜")).revision == 0
    finally:
        for store in stores:
            store.close()


def test_the_settings_open_the_stores_they_name(postgres_database: str, tmp_path: Path) -> None:
    on_postgres = Settings(data_dir=tmp_path, writing_db_url=postgres_database)
    projects, sessions = open_project_store(on_postgres), open_session_store(on_postgres)
    try:
        projects.create_project("alice", ProjectIn(name="长夜"))
    finally:
        projects.close()
        sessions.close()
    assert not (tmp_path / "writing").exists(), "nothing on local disk"

    embedded = Settings(data_dir=tmp_path)
    open_project_store(embedded).create_project("alice", ProjectIn(name="长夜"))
    open_session_store(embedded)
    assert sorted(p.name for p in (tmp_path / "writing").glob("*.sqlite3")) == ["projects.sqlite3", "sessions.sqlite3"]


def test_a_writing_db_url_that_is_not_postgresql_is_refused() -> None:
    with pytest.raises(ValidationError, match="WRITING_DB_URL"):
        Settings(writing_db_url="mysql://db/writing")
    assert "hunter2" not in repr(Settings(writing_db_url="postgresql://writer:hunter2@db/writing"))


def test_a_server_that_cannot_be_reached_is_named_without_its_password() -> None:
    with pytest.raises(ConnectionError, match=r"127\.0\.0\.1:9/writing") as refused:
        PostgresDatabase("postgresql://writer:hunter2@127.0.0.1:9/writing", connect_timeout=1)
    assert "hunter2" not in str(refused.value)
