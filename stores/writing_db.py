"""The database under the writers' stores (`stores.writing_projects`, `stores.writing_sessions`): one SQLite file
(the embedded default) or a PostgreSQL server (`WRITING_DB_URL`), behind one small connection type, so one store
body runs on both. The stores' SQL is SQLite's; on PostgreSQL a statement is translated (`?` → `%s`, so no `?`
may stand in a string literal; `INSERT OR IGNORE` → `ON CONFLICT DO NOTHING`); rows are read by column name or
position on both. What differs besides:

- a write transaction: SQLite's `BEGIN IMMEDIATE` takes the database's one write lock; on PostgreSQL a store locks
  the rows it decides on (`for_update`, appended to its `SELECT`) or an advisory lock for a key (`begin_write`);
- a read in one snapshot: SQLite's deferred `BEGIN`; PostgreSQL's `REPEATABLE READ`;
- the schema: SQLite's is created and extended when a store opens the file (as before); PostgreSQL's is a list of
  versioned migrations per store (`PostgresDatabase.migrate`), run when a store is opened, once, under an advisory
  lock, so two processes starting at once apply each migration once.

Each call borrows one connection (SQLite: a new one; PostgreSQL: from a pool) for one transaction, committed when
the block ends and rolled back when it raises."""

import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

INTEGRITY_ERRORS = (sqlite3.IntegrityError, psycopg.IntegrityError)
"""A statement broke a constraint (a unique index, a foreign key), on either database."""

_MIGRATIONS_LOCK = 7_341_030
"""The advisory lock every process takes to run the PostgreSQL migrations (a number of our own)."""


class Cursor(Protocol):
    """A statement's result: rows read by name (`row["id"]`) or position (`row[0]`), `keys()` and `dict(row)`."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection:
    """One connection in one transaction, on either database (see the module docstring)."""

    def __init__(self, raw: sqlite3.Connection | psycopg.Connection[Any]) -> None:
        self._raw = raw
        self._changes = 0
        self._postgres = isinstance(raw, psycopg.Connection)
        self.for_update = " FOR UPDATE" if self._postgres else ""
        """What a `SELECT` ends with to lock the rows it reads until the transaction ends (PostgreSQL only)."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        if isinstance(self._raw, sqlite3.Connection):
            return self._raw.execute(sql, params)
        cursor = self._raw.execute(_postgres_sql(sql), params)
        if not sql.lstrip().upper().startswith("SELECT"):
            self._changes += max(cursor.rowcount, 0)
        return cursor

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        for params in rows:
            self.execute(sql, params)

    @property
    def changes(self) -> int:
        """How many rows this connection inserted, updated or deleted so far."""
        return self._raw.total_changes if isinstance(self._raw, sqlite3.Connection) else self._changes

    def begin_write(self, lock: str | None = None) -> None:
        """Start a transaction that writes: SQLite takes its write lock now (what the transaction reads stays true
        until it commits); PostgreSQL takes the advisory lock named `lock` (if given) until it ends."""
        if not self._postgres:
            self.execute("BEGIN IMMEDIATE")
        elif lock is not None:
            self.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (lock,))

    def begin_snapshot(self) -> None:
        """Start a transaction whose reads all see one snapshot of the database."""
        self.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ" if self._postgres else "BEGIN")


class SqliteDatabase:
    """A SQLite file (WAL, so readers never wait for a writer): a new connection per transaction."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def raw(self) -> Iterator[sqlite3.Connection]:
        """A plain sqlite3 connection in one transaction (for the schema, which differs per database)."""
        db = sqlite3.connect(self.path, timeout=10)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys=ON")
        try:
            with db:  # one transaction: committed on success, rolled back on an error
                yield db
        finally:
            db.close()

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        with self.raw() as db:
            yield Connection(db)

    def close(self) -> None:
        """Nothing to close: each transaction had its own connection."""


class PostgresDatabase:
    """A PostgreSQL database, through a pool of connections kept open for the process's life (`close` ends it)."""

    def __init__(self, url: str, max_connections: int = 8, connect_timeout: float = 30.0) -> None:
        """Connected (`ConnectionError`, which names the server but not the password, when it cannot be within
        `connect_timeout` seconds)."""
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url, min_size=1, max_size=max_connections, kwargs={"row_factory": _rows_by_name}, open=True
        )
        try:
            self._pool.wait(timeout=connect_timeout)
        except PoolTimeout:
            self._pool.close()
            where = conninfo_to_dict(url)
            place = f"{where.get('host', 'localhost')}:{where.get('port', 5432)}/{where.get('dbname', '')}"
            raise ConnectionError(f"WRITING_DB_URL: no connection to PostgreSQL at {place}") from None

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        with self._pool.connection() as db:  # committed on success, rolled back on an error
            yield Connection(db)

    def migrate(self, component: str, migrations: Sequence[str]) -> None:
        """The migrations of `component` (a store) not applied yet, each in order and recorded, in one transaction
        under an advisory lock: of two processes starting at once, the second finds them applied."""
        with self._pool.connection() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATIONS_LOCK,))
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, "
                "applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (component, version))"
            )
            rows = db.execute("SELECT version FROM schema_migrations WHERE component = %s", (component,)).fetchall()
            applied = {row[0] for row in rows}
            for version, migration in enumerate(migrations, start=1):
                if version not in applied:
                    db.execute(migration.encode())  # bytes: psycopg's type for a query built at run time
                    db.execute(
                        "INSERT INTO schema_migrations (component, version) VALUES (%s, %s)", (component, version)
                    )

    def close(self) -> None:
        self._pool.close()


Database = SqliteDatabase | PostgresDatabase


class _Row(tuple[Any, ...]):
    """A PostgreSQL row as a `sqlite3.Row` reads: by position, by column name, `keys()`."""

    _names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> "_Row":
        row = super().__new__(cls, values)
        row._names = names
        return row

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(self._names[key] if isinstance(key, str) else key)

    def keys(self) -> list[str]:
        return list(self._names)


def _rows_by_name(cursor: psycopg.Cursor[Any]) -> Any:
    names = {column.name: n for n, column in enumerate(cursor.description or ())}

    def row(values: Sequence[Any]) -> _Row:
        return _Row(values, names)

    return row


_IGNORE = re.compile(r"^\s*INSERT OR IGNORE INTO", re.IGNORECASE)


@lru_cache(maxsize=512)
def _postgres_sql(sql: str) -> bytes:
    """A statement of the stores (SQLite's SQL) as PostgreSQL takes it; bytes, which psycopg sends as they are."""
    translated = sql.replace("%", "%%").replace("?", "%s")
    if _IGNORE.match(translated):
        translated = _IGNORE.sub("INSERT INTO", translated) + " ON CONFLICT DO NOTHING"
    return translated.encode()
