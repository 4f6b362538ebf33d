"""A throwaway PostgreSQL server for tests and `make run-scaled`: a cluster made by `initdb` in a temporary
directory, started by `pg_ctl` on 127.0.0.1 and an ephemeral port (trust auth, fsync off), removed when stopped.
`initdb` refuses to run as root: as root the cluster runs as the `postgres` user (Debian's package creates it),
which owns the directory. The binaries and that user are found as `make run-scaled` finds them (`deploy.scaled`).

    url, stop = start_postgres()   # postgresql://postgres@127.0.0.1:<port>/postgres
    database_url = create_database(url, "t_1")
    ...
    stop()

In pytest: the session's server `postgres_server` (its URL) and a fresh database per test `postgres_database`;
`python -m tests.postgres_server` starts one (with a database `writing`) until Ctrl-C.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from deploy.scaled import postgres_bin_dir, unprivileged_user
from deploy.stack import StackError


def start_postgres() -> tuple[str, Callable[[], None]]:
    """A new cluster, started: its superuser's URL (database `postgres`) and a function that stops and removes it.
    `RuntimeError` when PostgreSQL is not installed or the cluster does not start."""
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed: no initdb on PATH or under /usr/lib/postgresql/*/bin")
    try:
        user = unprivileged_user()
    except StackError as error:
        raise RuntimeError(str(error)) from None
    root = Path(tempfile.mkdtemp(prefix="pg-test-"))
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
    data, log = root / "data", root / "log"

    def run(*command: str | Path, check: bool = True) -> None:
        uid, gid = (user.pw_uid, user.pw_gid) if user is not None else (None, None)
        subprocess.run([str(part) for part in command], check=check, capture_output=True, user=uid, group=gid)

    def stop() -> None:
        run(bin_dir / "pg_ctl", "stop", "-D", data, "-m", "immediate", check=False)
        shutil.rmtree(root, ignore_errors=True)

    try:
        run(bin_dir / "initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
        for attempt in range(3):  # the free port found may be taken before the server binds it
            port = _free_port()
            settings = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={root}"
            settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
            try:
                run(bin_dir / "pg_ctl", "start", "-w", "-D", data, "-l", log, "-o", settings)
                break
            except subprocess.CalledProcessError:
                if attempt == 2:
                    raise
    except subprocess.CalledProcessError as error:
        said = error.stderr.decode(errors="replace") + (log.read_text(errors="replace") if log.exists() else "")
        stop()
        raise RuntimeError(f"PostgreSQL did not start: {said}") from error

    return f"postgresql://postgres@127.0.0.1:{port}/postgres", stop


def create_database(url: str, name: str, icu_locale: str | None = None) -> str:
    """A new empty database `name` on the server of `url` (a superuser's), sorting text by `icu_locale` if given
    (else by the cluster's locale); its URL."""
    collation = f" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '{icu_locale}'" if icu_locale else ""
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"{collation}'.encode())
    return url.rsplit("/", 1)[0] + f"/{name}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """One throwaway PostgreSQL server for the test session: its superuser's URL. Skipped only when PostgreSQL is
    not installed (`.ci/run` installs it)."""
    if postgres_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql/*/bin)")
    url, stop = start_postgres()
    try:
        yield url
    finally:
        stop()


@pytest.fixture
def postgres_database(postgres_server: str) -> str:
    """A new empty database on the session's server, for one test: its URL. It sorts text as English does
    (ICU's `en-US`: punctuation after letters and digits, case folded), unlike SQLite, so a test that passes on it
    does not lean on the database's locale."""
    return create_database(postgres_server, f"t_{uuid.uuid4().hex[:12]}", icu_locale="en-US")


if __name__ == "__main__":
    server_url, stop_server = start_postgres()
    writing_url = create_database(server_url, "writing")
    sys.stdout.write(f"PostgreSQL on {server_url}; WRITING_DB_URL={writing_url}\nCtrl-C stops it\n")
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        stop_server()
