"""The writers' stores on each database they run on (`stores.writing_db`): the contract tests take `backend` and
run once on SQLite and once on PostgreSQL (a fresh database on the session's throwaway server)."""

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from stores.writing_db import PostgresDatabase
from stores.writing_projects import ProjectStore
from stores.writing_sessions import SessionStore


@dataclass
class WritingBackend:
    """Opens the writers' stores on one database, as a process would (each store its own connections)."""

    name: str
    directory: Path
    url: str | None = None
    opened: list[ProjectStore | SessionStore] = field(default_factory=list)

    def projects(self) -> ProjectStore:
        store = ProjectStore(PostgresDatabase(self.url)) if self.url else ProjectStore.under(self.directory)
        self.opened.append(store)
        return store

    def sessions(self, keep: int) -> SessionStore:
        store = SessionStore(PostgresDatabase(self.url), keep) if self.url else SessionStore.under(self.directory, keep)
        self.opened.append(store)
        return store


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[WritingBackend]:
    url = request.getfixturevalue("postgres_database") if request.param == "postgres" else None
    opened = WritingBackend(request.param, tmp_path, url)
    try:
        yield opened
    finally:
        for store in opened.opened:
            store.close()
