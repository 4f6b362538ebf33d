"""Issue 27 item 3, the preview on the blackboard: the build of the run's last check is `state.preview` only when
that check was of the final workspace (a check whose build was skipped, before the repair round, leaves none), and
`state.previewNote` says why a run has none (no toolchain on the worker); the build's files stay in the blob
store, never in the workflow's history. A stand-in `npm` on PATH installs a `vite` that writes a small `dist/`."""

import asyncio
import json
from pathlib import Path

import pytest

from activities.app_builder.offline.scaffold import VITE_CONFIG
from models.app_builder.agents import AppBrief
from models.app_builder.quality import PREVIEW_NO_TOOLCHAIN
from models.app_builder.runs import AppRunInput
from stores.app_preview import preview_file, preview_manifest_key
from tests.llm.loopback import Loopback
from tests.unit.app_builder.test_toolchain import install_npm
from tests.workflows.app_builder.harness import TODO_APP, AppHarness, payload_text
from tests.workflows.app_builder.scripts import ScriptedModel, task
from tests.workflows.app_builder.test_llm_runs import gated
from tests.workflows.app_builder.test_quality_gate import MANIFEST, MODEL_CONFIG
from workflows.app_builder.workflow import AppBuilderWorkflow

MARKER = "preview-build-of-the-test"
BUILDING_NPM = """#!/bin/sh
mkdir -p node_modules/.bin node_modules/vite
printf '%s\\n' '#!/bin/sh' 'mkdir -p dist/assets' \\
  'echo "<!doctype html><script type=module crossorigin src=./assets/app.js></script>" > dist/index.html' \\
  'echo "document.title = \\"{marker}\\"" > dist/assets/app.js' > node_modules/.bin/vite
chmod +x node_modules/.bin/vite
"""
"""An `npm` whose install leaves a `vite` that writes `dist/index.html` and `dist/assets/app.js`."""


async def test_issue_27_the_final_workspaces_build_is_the_preview_and_stays_out_of_history(
    scripted: AppHarness, loopback: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_npm(monkeypatch, tmp_path / "bin", BUILDING_NPM.format(marker=MARKER))
    config = task("config", "scaffold-agent", ["scaffold"])
    loopback.responder = ScriptedModel(
        plans=[gated(config)],
        writes={"config": {"package.json": json.dumps(MANIFEST), "vite.config.ts": MODEL_CONFIG}},
        repairs=[{"vite.config.ts": VITE_CONFIG}],
    )
    run_input = AppRunInput(owner="tester", brief=AppBrief(message=TODO_APP), llm_configured=True, toolchain="on")

    outcome = await scripted.finish(await scripted.start_run(AppBuilderWorkflow.run, run_input, id_prefix="app-pv"))

    state = outcome.state
    first, last = state.quality[0], state.quality[-1]
    assert first.preview is None and first.preview_note is not None and "build was skipped" in first.preview_note
    assert state.preview is not None and state.preview == last.preview and state.preview_note is None
    assert state.preview.workspace_ref == state.workspace.manifest_ref, "built from the final workspace"
    assert (state.preview.files, outcome.of_type("app_ready")[0].data["preview"]) == (2, True)
    key = preview_manifest_key(state.preview)
    script = await asyncio.to_thread(preview_file, scripted.blobs, key, "assets/app.js")
    assert script is not None and MARKER in script.decode()
    assert MARKER not in payload_text(await outcome.handle.fetch_history()), "no file contents in history"


async def test_issue_27_without_npm_on_the_worker_the_preview_note_says_so(
    scripted: AppHarness, loopback: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    loopback.responder = ScriptedModel(plans=[gated()])
    run_input = AppRunInput(owner="tester", brief=AppBrief(message=TODO_APP), llm_configured=True, toolchain="auto")

    outcome = await scripted.finish(await scripted.start_run(AppBuilderWorkflow.run, run_input, id_prefix="app-np"))

    assert outcome.state.success
    assert outcome.state.preview is None
    assert outcome.state.preview_note == PREVIEW_NO_TOOLCHAIN
    assert outcome.of_type("app_ready")[0].data["preview"] is False
