"""Issue 27: a quality gate that sees every file, on app runs with a (scripted) model. Files written after the
plan's own quality task are checked after the last wave (and repaired, or the run is not a success); a Vite
config the model wrote, which the worker does not run, is a finding when the toolchain is required (with a
stand-in `npm` on PATH); `generatedComponents` names the final workspace's components. A run recorded before
the check after the last wave still replays: the committed history
`AppBuilderWorkflow-late-writer-before-app-quality-after-last-wave`."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from activities.app_builder.offline.scaffold import VITE_CONFIG
from models.app_builder.agents import AppBrief
from models.app_builder.runs import AppRunInput
from tests.histories.replay import strict_replayer
from tests.llm.loopback import Loopback
from tests.unit.app_builder.test_toolchain import install_npm
from tests.workflows.app_builder.harness import TODO_APP, AppHarness
from tests.workflows.app_builder.scripts import SCAFFOLD_FILES, ScriptedModel, task
from tests.workflows.app_builder.test_llm_runs import FIXED, MISSING_IMPORT, gated
from workflows.app_builder.workflow import AppBuilderWorkflow


def checked_early(*late: dict[str, Any]) -> list[dict[str, Any]]:
    """scaffold, the plan's quality task on it and its repair task, then `late` tasks after the quality task."""
    return [
        task("scaffold", "scaffold-agent"),
        task("quality", "quality-agent", ["scaffold"], ["parse_files", "resolve_imports"]),
        task("repair", "repair-agent", ["quality"]),
        *late,
    ]


def rounds(outcome: Any) -> list[tuple[int, bool]]:
    return [(event.data["round"], event.data["passed"]) for event in outcome.of_type("quality_result")]


async def test_a_file_written_after_the_plans_quality_task_is_checked_and_the_run_is_not_a_success(
    scripted: AppHarness, loopback: Loopback
) -> None:
    pages = task("pages", "page-agent", ["quality"])
    loopback.responder = ScriptedModel(plans=[checked_early(pages)], writes={"pages": {"src/Page.tsx": MISSING_IMPORT}})

    outcome = await scripted.run()

    assert rounds(outcome) == [(0, True), (0, False), (1, False), (2, False)], "checked again after the last wave"
    state = outcome.state
    assert outcome.result.status == "completed" and not outcome.result.success and not state.success
    assert "pages" in state.degraded_tasks
    assert any(issue.startswith("src/Page.tsx:1") and "./Missing" in issue for issue in state.unresolved_issues)
    assert state.tasks["quality"].status == "completed" and state.tasks["repair"].status == "not_needed"
    [ready] = outcome.of_type("app_ready")
    assert ready.data["success"] is False and ready.data["unresolvedIssues"] == state.unresolved_issues
    assert outcome.path[-4:] == ["repair", "quality_gate", "finalize", "done"]


async def test_a_finding_after_the_last_wave_goes_to_the_repair_agent_and_the_repaired_run_succeeds(
    scripted: AppHarness, loopback: Loopback
) -> None:
    pages = task("pages", "page-agent", ["quality"])
    model = ScriptedModel(
        plans=[checked_early(pages)], writes={"pages": {"src/Page.tsx": MISSING_IMPORT}}, repairs=[FIXED]
    )
    loopback.responder = model

    outcome = await scripted.run()

    assert rounds(outcome) == [(0, True), (0, False), (1, True)]
    assert "./Missing" in model.repair_requests[0], "the repair agent reads the last check's findings"
    assert outcome.state.tasks["final-repair"].status == "completed"
    assert outcome.files["src/Missing.tsx"] == FIXED["src/Missing.tsx"]
    assert outcome.state.success and not outcome.state.unresolved_issues
    history = await outcome.handle.fetch_history()
    activity_ids = {
        event.activity_task_scheduled_event_attributes.activity_id
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
    }
    assert {"quality-check-0", "final-quality-check-0", "final-quality-check-1"} <= activity_ids
    replayed = await strict_replayer().replay_workflow(history)
    assert replayed.replay_failure is None, "the run that took the new path replays"


async def test_a_workspace_unchanged_since_the_plans_quality_task_is_not_checked_again(
    scripted: AppHarness, loopback: Loopback
) -> None:
    loopback.responder = ScriptedModel(plans=[checked_early(task("notes", "page-agent", ["quality"]))])

    outcome = await scripted.run()

    assert rounds(outcome) == [(0, True)], "the late task wrote nothing"
    assert outcome.state.success


async def test_generated_components_name_the_final_workspaces_components_on_the_model_path(
    scripted: AppHarness, loopback: Loopback
) -> None:
    pages = task("pages", "page-agent", ["scaffold"])
    written = {
        "src/components/TodoItem.tsx": "export default function TodoItem() {\n  return <li />;\n}\n",
        "src/components/theme.css": "li { color: red; }\n",
        "src/pages/Home.tsx": "export default function Home() {\n  return <main />;\n}\n",
    }
    loopback.responder = ScriptedModel(plans=[gated(pages)], writes={"pages": written})

    outcome = await scripted.run()

    assert outcome.state.success
    assert outcome.state.generated_components == ["TodoItem", "Home"]


VITE_NPM = """#!/bin/sh
echo "npm $@" >> {log}
mkdir -p node_modules/.bin node_modules/vite node_modules/@vitejs/plugin-react
printf '%s\\n' '#!/bin/sh' 'echo "vite $@ on:" >> {log}' \\
  'while IFS= read -r line || [ -n "$line" ]; do echo "$line"; done < vite.config.ts >> {log}' \\
  > node_modules/.bin/vite
chmod +x node_modules/.bin/vite
"""
"""An `npm` whose install leaves a `vite` that records each build and the config it was run with."""

MANIFEST = json.loads(SCAFFOLD_FILES["package.json"]) | {
    "devDependencies": {"vite": "5.4.11", "@vitejs/plugin-react": "4.3.4"}
}
MODEL_CONFIG = VITE_CONFIG.replace("plugins: [react()],", "plugins: [react()],\n  server: { port: 3000 },")


@pytest.fixture
def vite_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "npm.log"
    install_npm(monkeypatch, tmp_path / "bin", VITE_NPM.format(log=log))
    return log


async def test_a_vite_config_the_model_wrote_is_a_finding_when_the_toolchain_is_required(
    scripted: AppHarness, loopback: Loopback, vite_log: Path
) -> None:
    config = task("config", "scaffold-agent", ["scaffold"])
    model = ScriptedModel(
        plans=[gated(config)],
        writes={"config": {"package.json": json.dumps(MANIFEST), "vite.config.ts": MODEL_CONFIG}},
        repairs=[{"vite.config.ts": VITE_CONFIG}],
    )
    loopback.responder = model
    run_input = AppRunInput(owner="tester", brief=AppBrief(message=TODO_APP), llm_configured=True, toolchain="on")

    outcome = await scripted.finish(await scripted.start_run(AppBuilderWorkflow.run, run_input, id_prefix="app-vite"))

    assert rounds(outcome) == [(0, False), (1, True)]
    first = outcome.of_type("quality_result")[0].data
    [finding] = first["findings"]
    assert finding["check"] == "build" and finding["path"] == "vite.config.ts"
    assert "the worker does not run" in finding["message"] and "could not run" in finding["message"]
    assert "vite.config.ts" in model.repair_requests[0], "the repair agent reads the finding"
    logged = await asyncio.to_thread(vite_log.read_text)
    assert logged.count("vite build --base ./ on:") == 1, "only the scaffold's config ran"
    assert "port: 3000" not in logged
    assert outcome.state.success and outcome.files["vite.config.ts"] == VITE_CONFIG
