"""Issue 26 row 8: a package.json a model wrote that names a package outside the registry (`file:../..`, a git
repository, a URL) would have npm link or fetch it into `node_modules`, where tsc and vite read it. The quality
check refuses it with DEPENDENCY_SPEC_REFUSED before any install, npm never runs on it, and the repair agent gets
the finding (a scripted model on the loopback server writes the bad file, then the fixed one)."""

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.app_builder.checks.toolchain import run_toolchain
from activities.app_builder.quality import QualityAgent
from models.app_builder.agents import AppBrief
from models.app_builder.quality import QualityRequest
from models.app_builder.runs import AppRunInput
from stores.app_workspace import store_files
from stores.blob_store import LocalBlobStore
from tests.llm.loopback import Loopback
from tests.unit.app_builder.test_toolchain import Heartbeats, install_npm
from tests.workflows.app_builder.harness import TODO_APP, AppHarness, app_harness
from tests.workflows.app_builder.scripts import SCAFFOLD_FILES, ScriptedModel, task
from tests.workflows.app_builder.test_llm_runs import gated
from workflows.app_builder.workflow import AppBuilderWorkflow

LOGGING_NPM = """#!/bin/sh
echo "npm $@" >> {log}
while IFS= read -r line || [ -n "$line" ]; do echo "$line"; done < package.json >> {log}
mkdir -p node_modules
"""
"""An `npm` that records each call and the package.json it was run on, and installs nothing."""

REGISTRY = json.loads(SCAFFOLD_FILES["package.json"])
OUTSIDE = {
    "dependencies": {"secret": "file:../../../outside"},
    "devDependencies": {"tool": "git+ssh://git@example.com/tool.git"},
    "optionalDependencies": {"blob": "https://example.com/blob.tgz"},
    "overrides": {"react": {"scheduler": "link:../scheduler"}},
}


def npm_calls(log: Path) -> str:
    """What the logging npm recorded (nothing when it never ran)."""
    return log.read_text() if log.exists() else ""


@pytest.fixture
def npm_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "npm.log"
    install_npm(monkeypatch, tmp_path / "bin", LOGGING_NPM.format(log=log))
    return log


@pytest.mark.parametrize("field", sorted(OUTSIDE))
async def test_the_toolchain_check_refuses_a_package_json_naming_outside_packages_without_running_npm(
    field: str, tmp_path: Path, npm_log: Path
) -> None:
    manifest = REGISTRY | {field: OUTSIDE[field]}
    files = SCAFFOLD_FILES | {"package.json": json.dumps(manifest)}
    blobs = LocalBlobStore(tmp_path / "blobs")
    agent = QualityAgent(blobs, tmp_path / "work")
    request = QualityRequest(run_id="run-1", workspace=store_files(blobs, files))

    static = await agent.quality_checks(request)
    toolchain = await run_toolchain(
        files, work_root=tmp_path / "work", cache_root=tmp_path / "cache", mode="auto", heartbeat=Heartbeats()
    )

    assert npm_calls(npm_log) == "", "npm never ran"
    assert not (tmp_path / "cache").exists() and not (tmp_path / "work").exists()
    assert [f.check for f in toolchain.findings] == ["dependencies"] and toolchain.checks_run == ["dependencies"]
    assert toolchain.findings[0].message.startswith("DEPENDENCY_SPEC_REFUSED: ")
    assert not static.passed and static.counts["dependencies"] == 1


async def test_npm_never_sees_the_projects_lockfile(tmp_path: Path, npm_log: Path) -> None:
    lock = {"lockfileVersion": 3, "packages": {"node_modules/react": {"resolved": "file:../../outside", "link": True}}}
    files = SCAFFOLD_FILES | {"package-lock.json": json.dumps(lock)}

    result = await run_toolchain(
        files, work_root=tmp_path / "work", cache_root=tmp_path / "cache", mode="auto", heartbeat=Heartbeats()
    )

    assert result.findings == []
    logged = npm_calls(npm_log)
    assert logged.startswith("npm install --ignore-scripts") and "outside" not in logged
    assert list((tmp_path / "cache").glob("*/package-lock.json")) == [], "npm had no lockfile of the project's"


@pytest.fixture
async def scripted(env: WorkflowEnvironment, tmp_path: Path, loopback: Loopback) -> AsyncIterator[AppHarness]:
    async with app_harness(env, tmp_path / "data", llm_base_url=loopback.base_url) as harness:
        yield harness


async def test_the_repair_agent_is_told_and_npm_runs_only_on_the_fixed_package_json(
    scripted: AppHarness, loopback: Loopback, npm_log: Path
) -> None:
    outside = json.dumps(REGISTRY | {"dependencies": REGISTRY["dependencies"] | {"secret": "file:../../outside"}})
    model = ScriptedModel(
        plans=[gated(task("deps", "page-agent", ["scaffold"]))],
        writes={"deps": {"package.json": outside}},
        repairs=[{"package.json": SCAFFOLD_FILES["package.json"]}],
    )
    loopback.responder = model
    run_input = AppRunInput(owner="tester", brief=AppBrief(message=TODO_APP), llm_configured=True, toolchain="auto")

    handle = await scripted.start_run(AppBuilderWorkflow.run, run_input, id_prefix="app-deps")
    outcome = await scripted.finish(handle)

    rounds = [(e.data["round"], e.data["passed"]) for e in outcome.of_type("quality_result")]
    assert rounds == [(0, False), (1, True)]
    first = outcome.of_type("quality_result")[0].data
    assert first["checksRun"] == ["parse", "imports", "dependencies"], "the toolchain did not run on it"
    [finding] = first["findings"]
    assert finding["check"] == "dependencies" and finding["path"] == "package.json"
    assert 'dependencies["secret"] = "file:../../outside"' in finding["message"]
    assert "DEPENDENCY_SPEC_REFUSED" in model.repair_requests[0], "the repair agent reads the finding"
    logged = npm_calls(npm_log)
    assert logged.count("npm install") == 1 and "outside" not in logged, "npm ran once, on the fixed package.json"
    assert outcome.state.success and outcome.files["package.json"] == SCAFFOLD_FILES["package.json"]
