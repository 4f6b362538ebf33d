"""The writing conversations' memory (issue 28): each session's turns, in a small SQLite store of its own under
`DATA_DIR/writing/sessions.sqlite3` or in PostgreSQL (`WRITING_DB_URL`, `stores.writing_db`), shared by the worker
(whose activities record and read turns) and the gateway (which lists them). A turn belongs to one owner, one
project and one session: every read names all three, so one principal never reads another's conversation. Bounded: a
session keeps its last `keep` turns, each text cut to `TURN_TEXT_CHARS`. The methods block (one short transaction
each); async callers run them in a thread."""

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from models.writing.sessions import TURN_TEXT_CHARS, SessionTurn, TurnIn
from stores.writing_db import Database, PostgresDatabase, SqliteDatabase

_SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
    run_id TEXT NOT NULL UNIQUE, text TEXT NOT NULL, intent TEXT, answer TEXT NOT NULL,
    target_chapter_id TEXT, target_chapter_position INTEGER, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS turns_by_session ON turns(owner, project_id, session_id, seq);
"""
_MIGRATIONS = (
    """
CREATE TABLE turns (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, owner TEXT NOT NULL, project_id TEXT NOT NULL,
    session_id TEXT NOT NULL, run_id TEXT NOT NULL UNIQUE, text TEXT NOT NULL, intent TEXT, answer TEXT NOT NULL,
    target_chapter_id TEXT, target_chapter_position INTEGER, created_at TEXT NOT NULL);
CREATE INDEX turns_by_session ON turns(owner, project_id, session_id, seq);
""",
)
"""PostgreSQL's schema of the turns, one migration after another (`PostgresDatabase.migrate`)."""
_COLUMNS = "run_id, text, intent, answer, target_chapter_id, target_chapter_position, created_at"


def capped(text: str, limit: int = TURN_TEXT_CHARS) -> str:
    """`text` cut to `limit` characters, marked `…` where it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class SessionStore:
    """Every conversation's turns, per owner, project and session."""

    def __init__(self, where: Path | PostgresDatabase, keep: int) -> None:
        """The store in the SQLite file at `where`, or in a PostgreSQL database; its schema brought up to date."""
        self._db: Database = where if isinstance(where, PostgresDatabase) else SqliteDatabase(where)
        self._keep = keep
        if isinstance(self._db, SqliteDatabase):
            with self._db.raw() as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(_SCHEMA)
        else:
            self._db.migrate("sessions", _MIGRATIONS)

    @classmethod
    def under(cls, data_dir: Path, keep: int) -> "SessionStore":
        return cls(data_dir / "writing" / "sessions.sqlite3", keep)

    def close(self) -> None:
        self._db.close()

    def record(self, turn: TurnIn, project_exists: Callable[[], bool] | None = None) -> int:
        """Add `turn` (once per run: a retried record changes nothing), drop the session's turns beyond the last
        `keep`; how many it keeps. `project_exists` is asked inside the write transaction: a turn of a project
        deleted meanwhile is not kept (0), and a delete that comes after it finds it (`forget_project`)."""
        session = (turn.owner, turn.project_id, turn.session_id)
        with self._db.connection() as db:
            db.begin_write(lock=_project_lock(turn.owner, turn.project_id))
            if project_exists is not None and not project_exists():
                return 0
            db.execute(
                "INSERT OR IGNORE INTO turns (owner, project_id, session_id, run_id, text, intent, answer,"
                " target_chapter_id, target_chapter_position, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    *session,
                    turn.run_id,
                    capped(turn.text),
                    turn.intent.value if turn.intent else None,
                    capped(turn.answer),
                    turn.target_chapter_id,
                    turn.target_chapter_position,
                    datetime.now(UTC).isoformat(),
                ),
            )
            db.execute(
                "DELETE FROM turns WHERE owner = ? AND project_id = ? AND session_id = ? AND seq NOT IN"
                " (SELECT seq FROM turns WHERE owner = ? AND project_id = ? AND session_id = ?"
                "  ORDER BY seq DESC LIMIT ?)",
                (*session, *session, self._keep),
            )
            row = db.execute(
                "SELECT count(*) FROM turns WHERE owner = ? AND project_id = ? AND session_id = ?", session
            ).fetchone()
        return int(row[0])

    def forget_project(self, owner: str, project_id: str) -> int:
        """Every turn of the owner's project, in every session, deleted (the project was); how many."""
        with self._db.connection() as db:
            db.begin_write(lock=_project_lock(owner, project_id))
            deleted = db.execute("DELETE FROM turns WHERE owner = ? AND project_id = ?", (owner, project_id))
        return deleted.rowcount

    def turns(self, owner: str, project_id: str, session_id: str) -> list[SessionTurn]:
        """The session's kept turns, oldest first; none for a session this owner has not had on this project."""
        with self._db.connection() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM turns WHERE owner = ? AND project_id = ? AND session_id = ? ORDER BY seq",
                (owner, project_id, session_id),
            ).fetchall()
        return [SessionTurn.model_validate(dict(row)) for row in rows]


def _project_lock(owner: str, project_id: str) -> str:
    """What `record` and `forget_project` lock on PostgreSQL (SQLite's write lock is the whole file's): a turn
    recorded while its project is deleted is either not kept or deleted with it."""
    return f"turns:{owner}/{project_id}"
