"""The embedded stack killed outright (issue 30 item 5): after `kill -9` of `deploy.stack` no process of it is left
and the next start on the same ports and DATA_DIR comes up at once; a start that finds what a killed stack left
(its `stack.json` and a child still running) reclaims it, and one that finds the recording stack alive refuses."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from deploy.stack import Stack as Supervisor
from deploy.stack import StackError, command_line
from models.settings import Settings
from tests.stack_process import REPO, Stack, free_port

pytestmark = pytest.mark.e2e

GONE_WITHIN_S = 10.0
STARTUP_S = 120.0


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def start_stack(data: Path, ports: dict[str, str], log: Path, module: str = "deploy.stack") -> subprocess.Popen[bytes]:
    """`python -m <module>` (`deploy.stack`, or `deploy.scaled`) on `ports` (and other settings) with `data`, healthy
    (raises with its log when it does not come up)."""
    env = os.environ | ports | {"DATA_DIR": str(data)}
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", module], cwd=REPO, env=env, stdout=out, stderr=out)
    gateway = f"http://127.0.0.1:{ports['API_PORT']}/healthz"
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the stack exited early:\n{log.read_text()}")
        try:
            if httpx.get(gateway, timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    process.kill()
    raise AssertionError(f"the stack did not come up in {STARTUP_S:g} s:\n{log.read_text()}")


def test_after_kill_9_of_the_stack_nothing_of_it_is_left_and_it_starts_again_at_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ports = {name: str(free_port()) for name in ("API_PORT", "TEMPORAL_PORT", "TEMPORAL_UI_PORT")}
    first = start_stack(data, ports, tmp_path / "first.log")
    parts = Stack(gateway="", temporal_address="", pid=first.pid).processes()
    pids = [pid for role in parts.values() for pid in role]
    assert all(parts.values()), parts

    first.kill()
    first.wait()
    deadline = time.monotonic() + GONE_WITHIN_S
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)

    assert [pid for pid in pids if alive(pid)] == [], "every process of the killed stack ended with it"
    second = start_stack(data, ports, tmp_path / "second.log")
    second.send_signal(signal.SIGINT)
    assert second.wait(timeout=60) == 0


def test_a_start_reclaims_what_a_killed_stack_left_and_refuses_while_that_stack_runs(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import time; time.sleep(120)"]
    left = subprocess.Popen(argv)
    while command_line(left.pid) is None:
        time.sleep(0.05)
    dead_stack = subprocess.Popen([sys.executable, "-c", "pass"])
    dead_stack.wait()
    record = tmp_path / "stack.json"
    child = {"name": "worker", "pid": left.pid, "argv": argv}
    record.write_text(json.dumps({"pid": dead_stack.pid, "children": [child]}))
    supervisor = Supervisor(Settings(data_dir=tmp_path))

    supervisor.reclaim_stale()

    assert left.wait(timeout=10) == -signal.SIGKILL, "the child the killed stack left was killed"
    assert not record.exists()

    runner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "deploy.stack"])
    try:
        while command_line(runner.pid) is None:  # its argv shows in /proc a moment after the exec
            time.sleep(0.05)
        record.write_text(json.dumps({"pid": runner.pid, "children": []}))
        with pytest.raises(StackError, match=f"another stack \\(pid {runner.pid}\\) runs"):
            supervisor.reclaim_stale()
        assert record.exists(), "a running stack's record is kept"
    finally:
        runner.kill()
        runner.wait()
