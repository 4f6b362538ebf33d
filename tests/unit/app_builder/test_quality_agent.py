"""The quality agent's activities over a stored workspace: the static checks' report (sorted, capped, counted)
and the toolchain report with its notes, failures and heartbeats."""

import shutil
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import ActivityEnvironment

from activities.app_builder.quality import QualityAgent
from models.app_builder.quality import MAX_FINDINGS, QualityRequest, ToolchainMode
from stores.app_workspace import store_files
from stores.blob_store import BlobStore, LocalBlobStore

PROJECT = {
    "package.json": '{"dependencies": {"react": "^18.3.1", "react-dom": "^18.3.1"}}',
    "index.html": '<!doctype html><html><body><script type="module" src="/src/main.tsx"></script></body></html>',
    "src/main.tsx": "import { createRoot } from 'react-dom/client'\nimport App from './App'\n",
    "src/App.tsx": "export default function App() {\n  return <h1>Hello</h1>\n}\n",
    "README.md": "# App\n",
}


@pytest.fixture
def blobs(tmp_path: Path) -> BlobStore:
    return LocalBlobStore(tmp_path / "blobs")


@pytest.fixture
def agent(blobs: BlobStore, tmp_path: Path) -> QualityAgent:
    return QualityAgent(blobs, tmp_path / "work")


def request(blobs: BlobStore, files: dict[str, str], toolchain: ToolchainMode = "off") -> QualityRequest:
    return QualityRequest(run_id="run-1", workspace=store_files(blobs, files), toolchain=toolchain)


async def test_a_sound_project_passes(agent: QualityAgent, blobs: BlobStore) -> None:
    report = await agent.quality_checks(request(blobs, PROJECT))

    assert report.passed
    assert report.files_checked == 4  # the README is not parsed
    assert report.checks_run == ["parse", "imports", "dependencies"]
    assert report.counts == {"parse": 0, "imports": 0, "dependencies": 0}


async def test_findings_of_both_checks_are_sorted_by_place(agent: QualityAgent, blobs: BlobStore) -> None:
    files = PROJECT | {
        "src/main.tsx": "import App from './App'\nimport { Nav } from './Nav'\nimport { z } from 'zod'\n",
        "src/App.tsx": "export default function App() {\n  return <h1>Hello</h2>\n}\n",
    }

    report = await agent.quality_checks(request(blobs, files))

    assert not report.passed
    assert [(finding.check, finding.path, finding.line) for finding in report.findings] == [
        ("parse", "src/App.tsx", 2),
        ("imports", "src/main.tsx", 2),
        ("imports", "src/main.tsx", 3),
    ]
    assert report.counts == {"parse": 1, "imports": 2, "dependencies": 0}


async def test_findings_are_capped_but_all_counted(agent: QualityAgent, blobs: BlobStore) -> None:
    broken = {f"src/styles/s{index:02}.css": ".a { : }\n" for index in range(MAX_FINDINGS + 10)}

    report = await agent.quality_checks(request(blobs, PROJECT | broken))

    assert len(report.findings) == MAX_FINDINGS
    assert report.counts["parse"] == MAX_FINDINGS + 10
    assert [finding.path for finding in report.findings] == sorted(broken)[:MAX_FINDINGS]


async def test_toolchain_off_passes_with_a_note(agent: QualityAgent, blobs: BlobStore) -> None:
    report = await ActivityEnvironment().run(agent.toolchain_checks, request(blobs, PROJECT, "off"))

    assert report.passed
    assert report.files_checked == len(PROJECT)
    assert report.checks_run == []
    assert report.notes == ["toolchain checks off: typecheck and build not run"]


async def test_toolchain_on_without_npm_fails(
    agent: QualityAgent, blobs: BlobStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))

    report = await ActivityEnvironment().run(agent.toolchain_checks, request(blobs, PROJECT, "on"))

    assert not report.passed
    assert report.counts == {"build": 1}
    assert report.findings[0].message == "npm not found: typecheck and build could not run"


async def test_toolchain_heartbeats_through_the_activity(
    agent: QualityAgent, blobs: BlobStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "npm").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "npm").chmod(0o755)
    sh = shutil.which("sh")
    assert sh is not None
    (bin_dir / "sh").symlink_to(sh)
    monkeypatch.setenv("PATH", str(bin_dir))
    environment = ActivityEnvironment()
    heartbeats: list[Any] = []
    environment.on_heartbeat = lambda *details: heartbeats.append(details)

    report = await environment.run(agent.toolchain_checks, request(blobs, PROJECT, "auto"))

    assert heartbeats == [("npm install",)]
    assert report.passed
    assert report.notes == ["vite is not installed: build skipped"]
