"""The toolchain check: `tsc --noEmit` and `vite build` on the project, where Node is installed.

A project's files may come from a model, and a model can be talked into writing anything, so the worker runs no
code the project wrote and reads nothing outside it. npm runs only on a package.json that names registry packages
alone (`checks.dependencies`: a path, `file:`, `link:`, git or a URL, which npm would link or fetch into
`node_modules`, is a finding, and nothing is installed), and on package.json alone (a package-lock.json the
project carries could name the same, so npm never sees it); it installs with `--ignore-scripts` (no package's
install script runs). `tsc` only reads the sources (and runs only when no config or reference points it outside
the project: `checks.confinement`), and the build is `vite build` from the installed package (never the project's
own `npm run build` script), run only when the project's Vite config is absent or one the worker wrote itself
(the offline scaffold's; `TRUSTED_VITE_CONFIGS`): a config a model wrote is code, and its build is skipped (a
note, or a finding on the config when the toolchain is required, `on`, so the repair agent can put the scaffold's
config back).

The build runs with a relative base (`vite build --base ./`, so its output works under any path prefix) and its
`dist/` is kept for the preview (`checks.build_output`, within limits: `ToolchainResult.build`); whenever there is
no build to keep, `ToolchainResult.preview_note` says why (no toolchain on the worker, the build skipped or
failed, too big).

The files are written to a fresh folder under `work_root` (removed afterwards) and its dependencies installed
with `npm install`. Installs are cached under `cache_root/<sha256 of package.json>`: the first run installs into a
temporary folder there and renames it into place, so a killed run never leaves half a cache; every project then
gets its own `node_modules` folder holding a symlink per installed package (tools write their own caches,
`node_modules/.vite`, `.tmp`, into the project, never into the shared install).

Every command runs as a subprocess in its own process group, with a time limit, an environment without the
worker's secrets, and a heartbeat at least every `HEARTBEAT_SECONDS` while it runs.
"""

import asyncio
import contextlib
import hashlib
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from activities.app_builder.checks.build_output import read_build
from activities.app_builder.checks.confinement import outside_paths
from activities.app_builder.checks.dependencies import PACKAGE_JSON, manifest_findings
from activities.app_builder.offline.scaffold import VITE_CONFIG
from models.app_builder.quality import PREVIEW_NO_TOOLCHAIN, PREVIEW_TOOLCHAIN_OFF, CheckName, Finding, ToolchainMode
from stores.app_workspace import workspace_path

HEARTBEAT_SECONDS = 5.0
INSTALL_TIMEOUT_SECONDS = 600.0
TYPECHECK_TIMEOUT_SECONDS = 180.0
BUILD_TIMEOUT_SECONDS = 300.0
OUTPUT_TAIL_LINES = 20

INSTALL_COMMAND = ("install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
BUILD_COMMAND = ("build", "--base", "./")
VITE_CONFIGS = ("vite.config.ts", "vite.config.js", "vite.config.mjs", "vite.config.mts", "vite.config.cjs")
TRUSTED_VITE_CONFIGS = frozenset({VITE_CONFIG})
"""Vite configs the worker may run: the ones its own offline scaffold writes."""
PASSED_ENV = (
    *("PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR"),
    *("NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR"),
    *("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"),
)
"""The only variables of the worker's environment a command sees (no API keys, no tokens)."""
QUIET_ENV = {"CI": "true", "NO_COLOR": "1", "FORCE_COLOR": "0", "npm_config_update_notifier": "false"}

_TSC_LOCATED = re.compile(r"^(?P<path>.+?)\((?P<line>\d+),(?P<column>\d+)\): error (?P<message>TS\d+: .*)$")
_TSC_GENERAL = re.compile(r"^error (?P<message>TS\d+: .*)$")
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

Heartbeat = Callable[[str], None]


@dataclass
class ToolchainResult:
    """What the toolchain found, what it could not run and why, which checks ran, and the build's output (`build`,
    path → bytes) or why there is none (`preview_note`)."""

    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checks_run: list[CheckName] = field(default_factory=list)
    build: dict[str, bytes] | None = None
    preview_note: str | None = None

    def skip(self, mode: ToolchainMode, check: CheckName, reason: str, what: str, path: str | None = None) -> None:
        """`what` cannot run for `reason`: a note, or a finding (on `path` when one file is the reason) when the
        toolchain mode is `on`."""
        if mode == "on":
            self.findings.append(Finding(check=check, message=f"{reason}: {what} could not run", path=path))
        else:
            self.notes.append(f"{reason}: {what} skipped")


@dataclass(frozen=True)
class _Completed:
    """A command's exit code (None: killed at its time limit) and its output, stdout and stderr together."""

    returncode: int | None
    output: str


async def run_toolchain(
    files: dict[str, str], *, work_root: Path, cache_root: Path, mode: ToolchainMode, heartbeat: Heartbeat
) -> ToolchainResult:
    """Type-check and build `files` (path → text) with the project's own toolchain, as `mode` asks."""
    result = ToolchainResult()
    if mode == "off":
        result.notes.append("toolchain checks off: typecheck and build not run")
        result.preview_note = PREVIEW_TOOLCHAIN_OFF
        return result
    npm = shutil.which("npm")
    if npm is None:
        result.skip(mode, "build", "npm not found", "typecheck and build")
        result.preview_note = PREVIEW_NO_TOOLCHAIN
        return result
    if PACKAGE_JSON not in files:
        result.skip(mode, "build", "no package.json", "typecheck and build")
        result.preview_note = "the project has no package.json: nothing to build, no preview"
        return result
    refused = manifest_findings(files)
    if refused:
        result.checks_run.append("dependencies")
        result.findings.extend(refused)
        result.notes.append("package.json names packages outside the registry: npm, typecheck and build not run")
        result.preview_note = "package.json names packages outside the registry: the build did not run, no preview"
        return result
    project = await asyncio.to_thread(_write_project, files, work_root)
    try:
        await _check_project(result, files, project, npm=npm, cache_root=cache_root, mode=mode, heartbeat=heartbeat)
    finally:
        await asyncio.to_thread(shutil.rmtree, project, ignore_errors=True)
    if result.build is None and result.preview_note is None:
        result.preview_note = "the build did not run: no preview"
    return result


def tsc_findings(output: str) -> list[Finding]:
    """`src/App.tsx(12,5): error TS2322: ...` lines as findings (and `error TS5058: ...` without a place)."""
    findings = []
    for line in output.splitlines():
        if located := _TSC_LOCATED.match(line):
            findings.append(
                Finding(
                    check="typecheck",
                    message=located["message"],
                    path=located["path"],
                    line=int(located["line"]),
                    column=int(located["column"]),
                )
            )
        elif general := _TSC_GENERAL.match(line):
            findings.append(Finding(check="typecheck", message=general["message"]))
    return findings


async def _check_project(
    result: ToolchainResult,
    files: dict[str, str],
    project: Path,
    *,
    npm: str,
    cache_root: Path,
    mode: ToolchainMode,
    heartbeat: Heartbeat,
) -> None:
    install_failure = await _install(files, project, npm=npm, cache_root=cache_root, heartbeat=heartbeat)
    if install_failure is not None:
        # In `auto` a machine that cannot reach the npm registry must not make every project fail its check:
        # the install's failure is a note there (the parsers and the import check still judge the project).
        if mode == "on":
            result.checks_run.append("build")
            result.findings.append(install_failure)
        else:
            result.notes.append(f"npm install failed, typecheck and build skipped: {install_failure.message[:300]}")
        result.preview_note = "npm install failed: the build did not run, no preview"
        return
    escaping = outside_paths(files)
    if "tsconfig.json" in files and escaping:
        result.notes.append(f"typecheck skipped: tsc would read outside the project ({'; '.join(escaping[:3])})")
    elif "tsconfig.json" in files:
        tsc = project / "node_modules" / ".bin" / "tsc"
        if await asyncio.to_thread(tsc.exists):
            result.checks_run.append("typecheck")
            result.findings.extend(await _typecheck(tsc, project, heartbeat))
        else:
            result.skip(mode, "typecheck", "typescript is not installed", "typecheck")
    untrusted = [name for name in VITE_CONFIGS if name in files and files[name] not in TRUSTED_VITE_CONFIGS]
    vite = project / "node_modules" / ".bin" / "vite"
    if untrusted:
        reason = f"{untrusted[0]} is the project's own code, which the worker does not run (use the scaffold's config)"
        result.skip(mode, "build", reason, "build", path=untrusted[0])
        result.preview_note = f"the build was skipped ({untrusted[0]} is the project's own code): no preview"
    elif await asyncio.to_thread(vite.exists):
        result.checks_run.append("build")
        completed = await _run([str(vite), *BUILD_COMMAND], project, BUILD_TIMEOUT_SECONDS, heartbeat, "vite build")
        if completed.returncode != 0:
            result.findings.append(_failure("build", "vite build", completed, BUILD_TIMEOUT_SECONDS))
            result.preview_note = "the build failed: no preview"
        else:
            output = await asyncio.to_thread(read_build, project / "dist")
            result.build, result.preview_note = (output.files or None), output.note
    else:
        result.skip(mode, "build", "vite is not installed", "build")
        result.preview_note = "vite is not installed: the build did not run, no preview"


async def _typecheck(tsc: Path, project: Path, heartbeat: Heartbeat) -> list[Finding]:
    command = [str(tsc), "--noEmit", "--pretty", "false", "-p", "."]
    completed = await _run(command, project, TYPECHECK_TIMEOUT_SECONDS, heartbeat, "tsc --noEmit")
    if completed.returncode == 0:
        return []
    return tsc_findings(completed.output) or [
        _failure("typecheck", "tsc --noEmit", completed, TYPECHECK_TIMEOUT_SECONDS)
    ]


async def _install(
    files: dict[str, str], project: Path, *, npm: str, cache_root: Path, heartbeat: Heartbeat
) -> Finding | None:
    """Install the dependencies once per package.json into the cache, then link them into `project`."""
    cached, staging = await asyncio.to_thread(_prepare_install, files, cache_root)
    if staging is not None:
        try:
            completed = await _run([npm, *INSTALL_COMMAND], staging, INSTALL_TIMEOUT_SECONDS, heartbeat, "npm install")
            if completed.returncode != 0:
                return _failure("build", "npm install", completed, INSTALL_TIMEOUT_SECONDS)
            await asyncio.to_thread(_publish, staging, cached)
        finally:
            await asyncio.to_thread(shutil.rmtree, staging, ignore_errors=True)
    await asyncio.to_thread(_link_modules, cached / "node_modules", project / "node_modules")
    return None


def _prepare_install(files: dict[str, str], cache_root: Path) -> tuple[Path, Path | None]:
    """The cache folder for these dependencies, and a fresh staging folder to install into when it is missing."""
    manifest = files[PACKAGE_JSON]
    digest = hashlib.sha256(manifest.encode()).hexdigest()
    cache_root = cache_root.absolute()  # the symlinks into it must not depend on the working directory
    cached = cache_root / digest
    if cached.is_dir():
        return cached, None
    cache_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=cache_root, prefix=".install-"))
    (staging / PACKAGE_JSON).write_text(manifest, encoding="utf-8")
    return cached, staging


def _publish(staging: Path, cached: Path) -> None:
    try:
        staging.rename(cached)
    except OSError:
        if not cached.is_dir():
            raise  # not a concurrent run that published the same dependencies first


def _link_modules(installed: Path, modules: Path) -> None:
    modules.mkdir(exist_ok=True)
    if installed.is_dir():
        for package in installed.iterdir():
            (modules / package.name).symlink_to(package, target_is_directory=package.is_dir())


def _write_project(files: dict[str, str], work_root: Path) -> Path:
    """A fresh folder under `work_root` holding `files` (a `node_modules` of the workspace is not written)."""
    work_root.mkdir(parents=True, exist_ok=True)
    project = Path(tempfile.mkdtemp(dir=work_root, prefix="project-"))
    for path, text in files.items():
        relative = workspace_path(path)
        if relative.split("/", 1)[0] == "node_modules":
            continue
        target = project / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return project


def _failure(check: CheckName, what: str, completed: _Completed, timeout: float) -> Finding:
    if completed.returncode is None:
        return Finding(check=check, message=f"`{what}` timed out after {timeout:g} s")
    tail = "\n".join(completed.output.strip().splitlines()[-OUTPUT_TAIL_LINES:])
    return Finding(check=check, message=f"`{what}` failed (exit {completed.returncode}):\n{tail}")


async def _run(command: list[str], cwd: Path, timeout: float, heartbeat: Heartbeat, what: str) -> _Completed:
    """Run `command` in `cwd`, heartbeating `what` while it runs; killed (with its children) at `timeout`."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env=_environment(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    communicating = asyncio.ensure_future(process.communicate())
    deadline = asyncio.get_running_loop().time() + timeout
    killed = False
    try:
        while not communicating.done():
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                break
            heartbeat(what)
            await asyncio.wait({communicating}, timeout=min(HEARTBEAT_SECONDS, remaining))
    finally:
        if not communicating.done():  # its time is up, or this activity was cancelled
            killed = True
            _kill_group(process.pid)
            await communicating
    stdout, _ = communicating.result()
    if killed:
        return _Completed(None, "")
    return _Completed(process.returncode, _ANSI_ESCAPE.sub("", stdout.decode(errors="replace")))


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def _environment() -> dict[str, str]:
    return {name: os.environ[name] for name in PASSED_ENV if name in os.environ} | QUIET_ENV
