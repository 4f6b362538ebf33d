"""`make run-scaled`: the scale topology on one machine, for a user to try it. Nothing is shared on disk between the
app's processes: the gateway and each worker get a `DATA_DIR` of their own (`DATA_DIR/scaled/<role>`, caches only),
and reach what they share through services, started here as children of the stack (`deploy.stack`: supervised,
restarted with backoff, killed with it):

- the writers' projects on PostgreSQL: a cluster under `DATA_DIR/scaled/postgres` (Debian's `postgresql` binaries;
  made with `initdb` on the first start, kept between runs), unless `WRITING_DB_URL` names one;
- blobs on an S3 API server: moto's server from PyPI, unless `S3_ENDPOINT_URL` names one. moto keeps objects in
  memory, so blobs last as long as the stack: point the S3 settings at MinIO or AWS S3 to keep them;
- vectors on Weaviate when `WEAVIATE_URL` names a server; no Weaviate runs here without one (it is not on PyPI or
  Debian), so without it each process keeps its own LanceDB (the style library, and the writers' search index
  as a cache it rebuilds from PostgreSQL), and the banner says so.

`SharedServices` is the settings that put a process on those services; the separate-hosts end-to-end test
(`tests/scaled_topology.py`) starts its processes with the same settings.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx

from deploy.stack import Stack, StackError, command_line, port_open, serve
from models.settings import Settings

log = logging.getLogger("deploy.scaled")

S3_BUCKET = "durable-agents"
S3_LOCAL_CREDENTIALS = ("local", "local-secret")
"""moto accepts any credentials; these are what the processes are given."""
MOTO_QUIET = (
    "import logging, sys; logging.getLogger('werkzeug').setLevel(logging.WARNING); "
    "from moto.server import main; main(sys.argv[1:])"
)
"""moto's server without a log line per request."""
POSTGRES_USER = "postgres"
"""Who runs the cluster when the stack runs as root (PostgreSQL refuses to run as root)."""


@dataclass(frozen=True)
class SharedServices:
    """Where the app's shared state lives: the settings that keep nothing on a process's own disk that another
    process needs (README, "Beyond one machine")."""

    writing_db_url: str
    s3_endpoint_url: str
    s3_bucket: str
    s3_access_key_id: str
    s3_secret_access_key: str
    weaviate_url: str | None = None
    weaviate_grpc_port: int | None = None

    def env(self) -> dict[str, str]:
        """These services as a process's environment (`models.settings.Settings` reads it)."""
        env = {
            "BLOB_STORE": "s3",
            "S3_BUCKET": self.s3_bucket,
            "S3_ENDPOINT_URL": self.s3_endpoint_url,
            "S3_REGION": "us-east-1",
            "S3_ACCESS_KEY_ID": self.s3_access_key_id,
            "S3_SECRET_ACCESS_KEY": self.s3_secret_access_key,
            "WRITING_DB_URL": self.writing_db_url,
            "VECTOR_STORE": "lancedb",
        }
        if self.weaviate_url:
            env |= {"VECTOR_STORE": "weaviate", "WEAVIATE_URL": self.weaviate_url}
            if self.weaviate_grpc_port is not None:
                env["WEAVIATE_GRPC_PORT"] = str(self.weaviate_grpc_port)
        return env


def create_bucket(endpoint: str, name: str) -> None:
    """Create the bucket `name` (3 to 63 lower-case letters, digits, hyphens) on the moto server at `endpoint`: S3's
    CreateBucket, unsigned (moto checks no signatures; obstore, the store's client, makes no buckets)."""
    httpx.put(f"{endpoint}/{name}", timeout=10).raise_for_status()


def postgres_bin_dir() -> Path | None:
    """Where PostgreSQL's server binaries (`initdb`, `postgres`) are: PATH, else the newest under
    /usr/lib/postgresql/*/bin; None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found is not None:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    return versions[-1].parent if versions else None


def unprivileged_user() -> pwd.struct_passwd | None:
    """The user PostgreSQL runs as when we are root (it refuses root); None when we are not root."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(POSTGRES_USER)
    except KeyError as exc:
        raise StackError(f"running as root, and there is no `{POSTGRES_USER}` user to run PostgreSQL as") from exc


def drop_stale_lock(cluster: Path) -> None:
    """Remove the cluster's `postmaster.pid` when no PostgreSQL runs under its pid: a server killed with the stack
    leaves it, and its pid may linger as a zombie nobody reaps, which PostgreSQL takes for a server still running."""
    lock = cluster / "postmaster.pid"
    try:
        pid = int(lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    if "postgres" not in " ".join(command_line(pid) or []):
        log.info("removing %s, left by a PostgreSQL that is gone (pid %d)", lock, pid)
        lock.unlink(missing_ok=True)


class ScaledStack(Stack):
    """The embedded stack's supervisor, with PostgreSQL and an S3 server as children and every app process on its
    own `DATA_DIR`."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.scaled_dir = self.data_dir / "scaled"
        self.services: SharedServices | None = None
        self.notes: list[str] = []
        """What the banner says about the services (what is in memory, what is per process)."""

    def worker_count(self) -> int:
        return max(self.s.stack_workers, 2)

    def app_env(self, role: str) -> dict[str, str]:
        """`role`'s own `DATA_DIR` (caches only) and the shared services."""
        if self.services is None:
            raise StackError("the shared services start before the app's processes")
        data_dir = self.scaled_dir / role
        data_dir.mkdir(parents=True, exist_ok=True)
        return self.services.env() | {"DATA_DIR": str(data_dir)}

    def banner(self) -> str:
        notes = "".join(f"Note: {note}\n" for note in self.notes)
        return super().banner().replace("Embedded stack is up:", "Scaled stack is up (no disk shared):") + notes

    def start_services(self) -> bool:
        """PostgreSQL and the S3 server, unless the settings name them; False when a stop came first."""
        s = self.s
        database = s.writing_db_url.get_secret_value() or self.start_postgres()
        if database is None:
            return False
        endpoint = s.s3_endpoint_url
        if endpoint:
            bucket = s.s3_bucket
            key_id = s.s3_access_key_id.get_secret_value() if s.s3_access_key_id else ""
            secret = s.s3_secret_access_key.get_secret_value() if s.s3_secret_access_key else ""
        else:
            local = self.start_s3()
            if local is None:
                return False
            endpoint, bucket, (key_id, secret) = local, S3_BUCKET, S3_LOCAL_CREDENTIALS
            self.notes.append(f"blobs are on moto's S3 server at {endpoint}, in memory: they go when the stack stops")
        if not s.weaviate_url:
            self.notes.append(
                "no WEAVIATE_URL: each process keeps its own LanceDB (a cache for the writers' search index); "
                "set WEAVIATE_URL to a Weaviate server to share vectors"
            )
        weaviate = s.weaviate_url or None
        self.services = SharedServices(database, endpoint, bucket, key_id, secret, weaviate, s.weaviate_grpc_port)
        return True

    def start_postgres(self) -> str | None:
        bin_dir = postgres_bin_dir()
        if bin_dir is None:
            raise StackError("PostgreSQL is not installed (apt-get install postgresql), or set WRITING_DB_URL")
        user = unprivileged_user()
        cluster = self.postgres_cluster(user)
        port = self.s.stack_postgres_port
        if port_open("127.0.0.1", port):
            raise StackError(f"port {port} on 127.0.0.1 is taken; set STACK_POSTGRES_PORT to a free port")
        if not (cluster / "PG_VERSION").is_file():
            cluster.mkdir(parents=True, exist_ok=True)
            if user is not None:
                os.chown(cluster, user.pw_uid, user.pw_gid)
            initdb = [str(bin_dir / "initdb"), "-D", str(cluster), "-U", "postgres", "-A", "trust", "-E", "UTF8"]
            done = subprocess.run(initdb, capture_output=True, user=user.pw_uid if user else None)
            if done.returncode != 0:
                raise StackError(f"initdb failed: {done.stderr.decode(errors='replace')[-500:]}")
        drop_stale_lock(cluster)
        # TCP only: a Unix socket's lock file would outlive a server killed with the stack and stop the next start.
        server = [str(bin_dir / "postgres"), "-D", str(cluster), "-c", "listen_addresses=127.0.0.1"]
        server += ["-c", f"port={port}", "-c", "unix_socket_directories=", "-c", "log_min_messages=warning"]
        self.start("postgres", server, user=user.pw_uid if user else None)
        if not self.wait_until(f"PostgreSQL on 127.0.0.1:{port}", lambda: port_open("127.0.0.1", port)):
            return None
        return f"postgresql://postgres@127.0.0.1:{port}/postgres"

    def postgres_cluster(self, user: pwd.struct_passwd | None) -> Path:
        """`DATA_DIR/scaled/postgres`, or, as root when the `postgres` user cannot reach that folder (a parent of
        it is private), a folder of this DATA_DIR's in that user's home, which the banner names."""
        cluster = self.scaled_dir / "postgres"
        cluster.parent.mkdir(parents=True, exist_ok=True)
        if user is None or subprocess.run(["test", "-x", str(cluster.parent)], user=user.pw_uid).returncode == 0:
            return cluster
        digest = hashlib.sha256(str(self.data_dir).encode()).hexdigest()[:12]
        cluster = Path(user.pw_dir) / "durable-agents" / digest
        cluster.parent.mkdir(parents=True, exist_ok=True)
        os.chown(cluster.parent, user.pw_uid, user.pw_gid)
        self.notes.append(f"the postgres user cannot reach {self.scaled_dir}: the writers' database is in {cluster}")
        return cluster

    def start_s3(self) -> str | None:
        port = self.s.stack_s3_port
        if port_open("127.0.0.1", port):
            raise StackError(f"port {port} on 127.0.0.1 is taken; set STACK_S3_PORT to a free port")
        self.start("s3", [sys.executable, "-c", MOTO_QUIET, "-H", "127.0.0.1", "-p", str(port)])
        endpoint = f"http://127.0.0.1:{port}"
        if not self.wait_until(f"the S3 server at {endpoint}", lambda: port_open("127.0.0.1", port)):
            return None
        create_bucket(endpoint, S3_BUCKET)
        return endpoint


def main() -> None:
    serve(ScaledStack(Settings()))


if __name__ == "__main__":
    main()
