"""Starts the real embedded stack (`python -m deploy.stack`) on free ports, for end-to-end tests and benchmarks."""

import functools
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

REPO = Path(__file__).resolve().parents[1]


STACK_ROLES = {"temporal": "server start-dev", "worker": "worker.py", "gateway": "api.server"}
"""Each process `deploy.stack` starts, by a piece of its command line."""


@dataclass(frozen=True)
class Stack:
    """Where a running stack listens, and the pid of its `deploy.stack` supervisor."""

    gateway: str
    temporal_address: str
    pid: int = 0

    def processes(self) -> dict[str, list[int]]:
        """The pids of each part of the stack (`STACK_ROLES`): the process the supervisor started first, then
        its own descendants (e.g. the gateway's intake process)."""
        found: dict[str, list[int]] = {role: [] for role in STACK_ROLES}
        for child in psutil.Process(self.pid).children():
            try:
                command = " ".join(child.cmdline())
                descendants = [p.pid for p in child.children(recursive=True)]
            except psutil.NoSuchProcess:
                continue
            for role, marker in STACK_ROLES.items():
                if marker in command:
                    found[role] += [child.pid, *descendants]
        return found


@functools.cache
def _candidate_ports() -> list[int]:
    """The ports outside the range the kernel hands out for `bind(0)` and outgoing connections (read once)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        ephemeral = range(int(low), int(high) + 1)
    except (OSError, ValueError):
        ephemeral = range(32768, 61000)
    return [port for port in range(10000, 65536) if port not in ephemeral]


def free_port() -> int:
    """A port free now and outside the kernel's ephemeral range: a port from `bind(0)` can be handed to another
    process (the Temporal dev server binds its internal services to ephemeral ports) between this pick and the
    moment our server binds it, which once failed CI with "address already in use"."""
    for port in random.sample(_candidate_ports(), 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port outside the ephemeral range")


@contextmanager
def running_stack(
    data_dir: Path, log: Path, startup_timeout: float = 120.0, env: dict[str, str] | None = None
) -> Iterator[Stack]:
    """The embedded stack on free ports with its data under `data_dir`; `env` adds settings."""
    api_port, temporal_port = free_port(), free_port()
    env = (
        os.environ
        | (env or {})
        | {
            "TEMPORAL_PORT": str(temporal_port),
            "TEMPORAL_UI_PORT": str(free_port()),
            "API_PORT": str(api_port),
            "DATA_DIR": str(data_dir),
        }
    )
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "deploy.stack"], cwd=REPO, env=env, stdout=out, stderr=out)
        stack = Stack(
            gateway=f"http://127.0.0.1:{api_port}", temporal_address=f"127.0.0.1:{temporal_port}", pid=process.pid
        )
        try:
            _wait_healthy(process, stack.gateway, log, startup_timeout)
            yield stack
        finally:
            process.send_signal(signal.SIGINT)
            code = process.wait(timeout=60)
        if code != 0:
            raise RuntimeError(f"the stack exited with {code}:\n{log.read_text()}")


STACK_UP = "Embedded stack is up"
"""What the stack prints once every part it started is up (`deploy.stack`'s banner). Until then it treats a part
that dies as a failed start and stops, so a test waits for it, not only for the gateway's answer."""


def _wait_healthy(process: subprocess.Popen[bytes], gateway: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the stack exited early:\n{log.read_text()}")
        try:
            if httpx.get(f"{gateway}/healthz", timeout=1).status_code == 200 and STACK_UP in log.read_text():
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the stack did not come up in {timeout:g} s:\n{log.read_text()}")
