"""The writers' stores as the settings choose them (`WRITING_DB_URL`): the gateway and the worker open them here,
once, at start (so a PostgreSQL schema is migrated before the first request). Empty: SQLite files under
`DATA_DIR/writing`, as on one machine; a `postgresql://` URL: that database, for both stores."""

from models.settings import Settings
from stores.writing_db import PostgresDatabase
from stores.writing_projects import ProjectStore, StoreLimits
from stores.writing_sessions import SessionStore


def open_project_store(settings: Settings) -> ProjectStore:
    url = settings.writing_db_url.get_secret_value()
    limits = StoreLimits(settings.max_projects_per_principal, settings.max_chapters_per_project)
    return ProjectStore(PostgresDatabase(url), limits) if url else ProjectStore.under(settings.data_dir, limits)


def open_session_store(settings: Settings) -> SessionStore:
    url = settings.writing_db_url.get_secret_value()
    keep = settings.writing_memory_turns
    return SessionStore(PostgresDatabase(url), keep) if url else SessionStore.under(settings.data_dir, keep)
