"""Separate hosts on one machine, for the end-to-end test of the scale settings: one Temporal dev server, one
PostgreSQL (a throwaway cluster), one S3 API server (moto), the Weaviate double, and a gateway and workers that are
each their own process with their own empty `DATA_DIR`, so nothing passes between them but those services.
Unlike `deploy.stack`, nothing here restarts a process that dies: a worker the test kills stays dead."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from deploy.scaled import SharedServices
from deploy.stack import port_open, temporal_dev_argv
from models.settings import Settings
from tests.postgres_server import create_database, start_postgres
from tests.s3_server import create_bucket, start_s3_server
from tests.stack_process import free_port
from tests.weaviate_double import start_weaviate_double

REPO = Path(__file__).resolve().parents[1]
API_KEY = "separate-hosts-key"
STARTUP_S = 120.0


@dataclass
class Topology:
    """Where the gateway listens, the processes (by role), and each one's own `DATA_DIR`."""

    gateway: str
    temporal_address: str
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    data_dirs: dict[str, Path] = field(default_factory=dict)
    logs: dict[str, Path] = field(default_factory=dict)

    @property
    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {API_KEY}"}

    def kill(self, role: str) -> None:
        """SIGKILL `role`'s process, as a host that loses power."""
        self.processes[role].send_signal(signal.SIGKILL)
        self.processes[role].wait(10)

    def log_tail(self) -> str:
        return "\n".join(f"--- {role}\n{path.read_text(errors='replace')[-3000:]}" for role, path in self.logs.items())


@contextmanager
def separate_hosts(root: Path, workers: int = 2) -> Iterator[Topology]:
    """The whole topology under `root` (each process's `DATA_DIR` is `root/<role>`), stopped at the end."""
    with ExitStack() as stack:
        postgres_url, stop_postgres = start_postgres()
        stack.callback(stop_postgres)
        s3_endpoint, stop_s3 = start_s3_server()
        stack.callback(stop_s3)
        create_bucket(s3_endpoint, "separate-hosts")
        weaviate = start_weaviate_double()
        stack.callback(weaviate.stop)
        services = SharedServices(
            writing_db_url=create_database(postgres_url, "writing"),
            s3_endpoint_url=s3_endpoint,
            s3_bucket="separate-hosts",
            s3_access_key_id="testing",
            s3_secret_access_key="testing",
            weaviate_url=weaviate.url,
            weaviate_grpc_port=weaviate.grpc_port,
        )
        temporal_port, api_port = free_port(), free_port()
        ports = {"TEMPORAL_PORT": str(temporal_port), "TEMPORAL_UI_PORT": str(free_port()), "API_PORT": str(api_port)}
        topology = Topology(f"http://127.0.0.1:{api_port}", f"127.0.0.1:{temporal_port}")
        base_env = (
            os.environ
            | services.env()
            | ports
            | {
                "TEMPORAL_HOST": "127.0.0.1",
                "API_HOST": "127.0.0.1",
                "API_KEYS": f"alice={API_KEY}",
                "BLOB_URL_SECRET": "separate-hosts-signing-secret",
                "PYTHONUNBUFFERED": "1",
            }
        )
        settings = Settings(temporal_port=temporal_port, temporal_ui_port=int(ports["TEMPORAL_UI_PORT"]))

        def start(role: str, argv: list[str]) -> None:
            data_dir = root / role
            data_dir.mkdir(parents=True)
            topology.data_dirs[role] = data_dir
            topology.logs[role] = root / f"{role}.log"
            with topology.logs[role].open("wb") as out:
                process = subprocess.Popen(
                    argv, cwd=REPO, env=base_env | {"DATA_DIR": str(data_dir)}, stdout=out, stderr=out
                )
            topology.processes[role] = process
            stack.callback(_stop, process)

        start("temporal", temporal_dev_argv(settings, root / "temporal"))
        _wait(topology, "Temporal", lambda: port_open("127.0.0.1", temporal_port))
        for number in range(1, workers + 1):
            start(f"worker-{number}", [sys.executable, "worker.py"])
        start("gateway", [sys.executable, "-m", "api.server"])
        _wait(topology, "the gateway", lambda: _healthy(f"{topology.gateway}/healthz"))
        yield topology


def _healthy(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def _wait(topology: Topology, what: str, ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + STARTUP_S
    while not ready():
        dead = [role for role, process in topology.processes.items() if process.poll() is not None]
        if dead or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up (exited: {dead}):\n{topology.log_tail()}")
        time.sleep(0.25)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
