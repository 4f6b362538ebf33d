"""The toolchain check: tsc's output as findings, the modes without npm, the install cache, failures and time
limits (with a stand-in `npm` script), and a real `npm install` + `tsc --noEmit` where npm is installed."""

import shutil
import time
from pathlib import Path

import pytest

from activities.app_builder.checks import toolchain
from activities.app_builder.checks.toolchain import ToolchainResult, run_toolchain, tsc_findings
from models.app_builder.quality import Finding, ToolchainMode

STAND_IN_NPM = """#!/bin/sh
echo "$@" >> {log}
case "$1" in
  install)
    mkdir -p node_modules/.bin node_modules/typescript node_modules/vite
    printf '#!/bin/sh\\necho "src/App.tsx(2,7): error TS2322: Type 1 is not assignable to type string."\\nexit 2\\n' \\
      > node_modules/.bin/tsc
    printf '#!/bin/sh\\necho "key=[$OPENAI_API_KEY]"\\n' > node_modules/.bin/vite
    printf 'i=1; while [ $i -le 30 ]; do echo "build line $i"; i=$((i+1)); done\\nexit 1\\n' >> node_modules/.bin/vite
    chmod +x node_modules/.bin/tsc node_modules/.bin/vite ;;
esac
"""
FAILING_NPM = '#!/bin/sh\necho "npm error 404 Not Found - GET https://registry.npmjs.org/nope"\nexit 1\n'
SLOW_NPM = "#!/bin/sh\nsleep 30\n"

PROJECT = {
    "package.json": '{"name": "app", "private": true, "scripts": {"build": "vite build"}}',
    "tsconfig.json": '{"compilerOptions": {"strict": true}}',
    "src/App.tsx": "export default function App() {\n  const title: string = 1\n}\n",
}


class Heartbeats(list[str]):
    """Every heartbeat's detail, in order."""

    def __call__(self, what: str) -> None:
        self.append(what)


def install_npm(monkeypatch: pytest.MonkeyPatch, folder: Path, script: str) -> None:
    """`script` as the only `npm` on PATH (with the shell tools it needs)."""
    folder.mkdir()
    npm = folder / "npm"
    npm.write_text(script)
    npm.chmod(0o755)
    for tool in ("sh", "mkdir", "chmod", "sleep", "printf"):
        found = shutil.which(tool)
        assert found is not None
        (folder / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(folder))


async def check(tmp_path: Path, mode: ToolchainMode, heartbeat: Heartbeats) -> ToolchainResult:
    return await run_toolchain(
        PROJECT, work_root=tmp_path / "work", cache_root=tmp_path / "cache", mode=mode, heartbeat=heartbeat
    )


def test_tsc_output_lines_become_findings() -> None:
    output = (
        "src/App.tsx(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\n"
        "  The expected type comes from property 'count'.\n"
        "src/lib/a b.ts(1,20): error TS2307: Cannot find module './x' or its corresponding type declarations.\n"
        "error TS5058: The specified path does not exist: 'tsconfig.app.json'.\n"
        "Found 3 errors.\n"
    )

    assert tsc_findings(output) == [
        Finding(
            check="typecheck",
            message="TS2322: Type 'string' is not assignable to type 'number'.",
            path="src/App.tsx",
            line=12,
            column=5,
        ),
        Finding(
            check="typecheck",
            message="TS2307: Cannot find module './x' or its corresponding type declarations.",
            path="src/lib/a b.ts",
            line=1,
            column=20,
        ),
        Finding(check="typecheck", message="TS5058: The specified path does not exist: 'tsconfig.app.json'."),
    ]


async def test_mode_off_runs_nothing(tmp_path: Path) -> None:
    heartbeats = Heartbeats()

    result = await check(tmp_path, "off", heartbeats)

    assert result.findings == [] and result.checks_run == [] and heartbeats == []
    assert result.notes == ["toolchain checks off: typecheck and build not run"]
    assert not (tmp_path / "work").exists()


async def test_without_npm_auto_notes_and_on_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))

    auto = await check(tmp_path, "auto", Heartbeats())
    on = await check(tmp_path, "on", Heartbeats())

    assert (auto.findings, auto.notes) == ([], ["npm not found: typecheck and build skipped"])
    assert [(finding.check, finding.message) for finding in on.findings] == [
        ("build", "npm not found: typecheck and build could not run")
    ]


async def test_typecheck_and_build_findings_with_one_cached_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "npm.log"
    install_npm(monkeypatch, tmp_path / "bin", STAND_IN_NPM.format(log=log))
    heartbeats = Heartbeats()

    first = await check(tmp_path, "on", heartbeats)
    second = await check(tmp_path, "on", Heartbeats())

    assert first == second
    assert first.checks_run == ["typecheck", "build"]
    typecheck, build = first.findings
    assert (typecheck.check, typecheck.path, typecheck.line, typecheck.column) == ("typecheck", "src/App.tsx", 2, 7)
    assert build.check == "build" and "`vite build` failed (exit 1)" in build.message
    assert "build line 30" in build.message and "build line 11" in build.message
    assert "build line 10\n" not in build.message and "key=[" not in build.message  # only the last 20 lines
    # one install (the second run reused it), no package's install script, no script of the project's own
    assert log.read_text().splitlines() == ["install --ignore-scripts --no-audit --no-fund --loglevel=error"]
    assert heartbeats == ["npm install", "tsc --noEmit", "vite build"]
    assert list((tmp_path / "work").iterdir()) == []


async def test_commands_do_not_see_the_workers_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_npm(monkeypatch, tmp_path / "bin", STAND_IN_NPM.format(log=tmp_path / "npm.log"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setattr(toolchain, "OUTPUT_TAIL_LINES", 40)

    result = await check(tmp_path, "on", Heartbeats())

    assert "key=[]" in result.findings[-1].message


async def test_a_failed_install_is_one_finding_when_required_and_caches_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_npm(monkeypatch, tmp_path / "bin", FAILING_NPM)

    result = await check(tmp_path, "on", Heartbeats())

    assert [finding.check for finding in result.findings] == ["build"]
    assert "`npm install` failed (exit 1)" in result.findings[0].message
    assert "404 Not Found" in result.findings[0].message
    assert list((tmp_path / "cache").iterdir()) == []


async def test_a_failed_install_in_auto_mode_is_a_note_not_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine without the npm registry: the parsers and imports judge the project, the toolchain says why it
    did not."""
    install_npm(monkeypatch, tmp_path / "bin", FAILING_NPM)

    result = await check(tmp_path, "auto", Heartbeats())

    assert result.findings == [] and result.checks_run == []
    assert any("npm install failed" in note and "404 Not Found" in note for note in result.notes)


async def test_a_command_past_its_time_limit_is_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_npm(monkeypatch, tmp_path / "bin", SLOW_NPM)
    monkeypatch.setattr(toolchain, "INSTALL_TIMEOUT_SECONDS", 0.5)
    monkeypatch.setattr(toolchain, "HEARTBEAT_SECONDS", 0.1)
    heartbeats = Heartbeats()
    started = time.monotonic()

    result = await check(tmp_path, "on", heartbeats)

    assert time.monotonic() - started < 10  # the shell and its `sleep` were killed, not waited for
    assert [finding.message for finding in result.findings] == ["`npm install` timed out after 0.5 s"]
    assert len(heartbeats) >= 3 and set(heartbeats) == {"npm install"}
    assert list((tmp_path / "cache").iterdir()) == []


@pytest.mark.toolchain
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
async def test_real_tsc_reports_a_type_error_and_passes_once_fixed(tmp_path: Path) -> None:
    files = {
        "package.json": '{"name": "tiny", "private": true, "devDependencies": {"typescript": "5.6.3"}}',
        "tsconfig.json": '{"compilerOptions": {"strict": true, "target": "ES2020"}, "include": ["src"]}',
        "src/count.ts": "export const count: number = 'one'\n",
    }
    roots = {"work_root": tmp_path / "work", "cache_root": tmp_path / "cache"}

    broken = await run_toolchain(files, mode="auto", heartbeat=Heartbeats(), **roots)
    files["src/count.ts"] = "export const count: number = 1\n"
    heartbeats = Heartbeats()
    fixed = await run_toolchain(files, mode="auto", heartbeat=heartbeats, **roots)

    assert broken.checks_run == ["typecheck"]
    assert [(finding.check, finding.path, finding.line) for finding in broken.findings] == [
        ("typecheck", "src/count.ts", 1)
    ]
    assert "TS2322" in broken.findings[0].message
    assert broken.notes == ["vite is not installed: build skipped"]
    assert fixed.findings == []
    assert "npm install" not in heartbeats


async def test_a_vite_config_the_project_wrote_is_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model could write a config that runs anything at build time: the worker type-checks that project but
    does not build it; where the toolchain is required (`on`) the skipped build is a finding on the config (issue
    27), in `auto` a note."""
    install_npm(monkeypatch, tmp_path / "bin", STAND_IN_NPM.format(log=tmp_path / "npm.log"))
    files = PROJECT | {"vite.config.ts": "import { execSync } from 'node:child_process';\nexecSync('touch pwned');\n"}
    roots = {"work_root": tmp_path / "work", "cache_root": tmp_path / "cache"}

    required = await run_toolchain(files, mode="on", heartbeat=Heartbeats(), **roots)
    optional = await run_toolchain(files, mode="auto", heartbeat=Heartbeats(), **roots)

    reason = "vite.config.ts is the project's own code, which the worker does not run (use the scaffold's config)"
    assert required.checks_run == ["typecheck"] and required.notes == []
    assert [(finding.check, finding.path) for finding in required.findings] == [
        ("typecheck", "src/App.tsx"),
        ("build", "vite.config.ts"),
    ]
    assert required.findings[1].message == f"{reason}: build could not run"
    assert optional.notes == [f"{reason}: build skipped"]
    assert [finding.check for finding in optional.findings] == ["typecheck"]


async def test_a_tsconfig_that_points_outside_the_project_is_not_type_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tsc would parse the named file and quote it in its errors: the typecheck is skipped and says why."""
    install_npm(monkeypatch, tmp_path / "bin", STAND_IN_NPM.format(log=tmp_path / "npm.log"))
    files = PROJECT | {"tsconfig.json": '{"files": ["../../.env"]}'}

    result = await run_toolchain(
        files, work_root=tmp_path / "work", cache_root=tmp_path / "cache", mode="on", heartbeat=Heartbeats()
    )

    assert "typecheck" not in result.checks_run
    assert result.notes[0] == "typecheck skipped: tsc would read outside the project (tsconfig.json: ../../.env)"
