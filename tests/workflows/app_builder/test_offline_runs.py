"""Offline app runs end to end on the time-skipping server (no LLM configured): the analysis chain in order, the
offline plan in the seed's waves, tasks of a wave side by side, the page and state agents' changes to one file
merged three-way, the quality agent's real checks passing on the generated project, and a history that carries
no file contents. Every run's transitions are checked against the declared graph."""

import json
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from activities.app_builder.checks.imports import import_findings
from activities.app_builder.checks.parsers import parse_findings
from models.app_builder.documents import ANALYSIS_ORDER
from tests.workflows.app_builder.harness import AppHarness, app_harness, payload_text
from workflows.app_builder.graph import analysis_node


async def test_the_layers_run_in_order_and_the_analysis_yields_exactly_four_documents(apps: AppHarness) -> None:
    outcome = await apps.run()

    assert outcome.result.status == "completed"
    assert [event.data["layer"] for event in outcome.of_type("layer_started")] == ["analysis", "planning", "execution"]
    ready = outcome.of_type("document_ready")
    assert [event.data["agentId"] for event in ready] == [agent.value for agent in ANALYSIS_ORDER]
    assert all(event.data["offline"] for event in ready), "offline documents are labelled"
    assert [document.agent_id for document in outcome.state.documents] == list(ANALYSIS_ORDER)
    assert outcome.path[:5] == [*(analysis_node(agent) for agent in ANALYSIS_ORDER), "planner"]
    assert outcome.path[-2:] == ["finalize", "done"]
    assert outcome.types[-2:] == ["app_ready", "done"]


async def test_the_plan_is_on_the_blackboard_and_its_waves_follow_the_dependencies(apps: AppHarness) -> None:
    outcome = await apps.run()

    plan = outcome.state.plan
    assert plan is not None
    [plan_ready] = outcome.of_type("plan_ready")
    ready = plan_ready.data
    assert ready["planId"] == plan.id and not ready["repaired"]
    wave_of = {task_id: index for index, ids in enumerate(outcome.state.waves) for task_id in ids}
    for task in plan.tasks:
        for dependency in task.depends_on:
            if task.agent_id != "repair-agent":
                assert wave_of[dependency] < wave_of[task.id], f"{task.id} runs after {dependency}"
    started = [event.data["wave"] for event in outcome.of_type("wave_started")]
    assert started == list(range(1, len(outcome.state.waves) + 1))
    agents_by_wave = [sorted(outcome.state.tasks[i].agent_id for i in ids) for ids in outcome.state.waves]
    assert agents_by_wave[0] == ["scaffold-agent"]
    assert agents_by_wave[1] == ["page-agent", "state-agent", "style-agent"], "the seed's wave 2"


async def test_every_task_is_reported_and_the_quality_check_passes_on_the_first_round(apps: AppHarness) -> None:
    outcome = await apps.run()

    state = outcome.state
    statuses = {record.agent_id: record.status for record in state.tasks.values()}
    assert statuses.pop("repair-agent") == "not_needed"
    assert set(statuses.values()) == {"completed"}
    started = {event.data["taskId"] for event in outcome.of_type("task_started")}
    assert started == {r.task_id for r in state.tasks.values() if r.agent_id != "repair-agent"}
    [quality] = outcome.of_type("quality_result")
    assert quality.data["passed"] and quality.data["round"] == 0
    assert {"parse", "imports"} <= set(quality.data["checksRun"])
    assert quality.data["filesChecked"] >= 10
    assert state.success and outcome.result.success
    assert not outcome.of_type("repair_round")
    assert state.generated_components, "the blackboard lists the components the page agent generated"
    history = await outcome.handle.fetch_history()
    activity_ids = {
        event.activity_task_scheduled_event_attributes.activity_id
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
    }
    merges = {f"merge-wave-{number}" for number in range(1, len(state.waves))}
    assert activity_ids == (started - {"quality"}) | merges | {"quality-check-0"}, "named after their tasks"


async def test_the_generated_project_parses_and_its_imports_resolve(apps: AppHarness) -> None:
    outcome = await apps.run()

    files = outcome.files
    assert {"package.json", "tsconfig.json", "index.html", "src/main.tsx", "src/App.tsx"} <= set(files)
    findings, parsed = parse_findings(files)
    assert not findings
    assert parsed >= 10, "every source, style, markup and JSON file is parsed"
    assert not import_findings(files)
    assert "react" in json.loads(files["package.json"])["dependencies"]
    assert outcome.state.workspace.files == len(files)


async def test_two_agents_changing_app_tsx_in_one_wave_are_merged_three_way(apps: AppHarness) -> None:
    outcome = await apps.run()

    state = outcome.state
    merges = [event.data for event in outcome.of_type("conflict")]
    assert [(m["path"], m["merged"]) for m in merges] == [("src/App.tsx", True)]
    [merged] = state.merged_files
    agents = {state.tasks[task_id].agent_id for task_id in merged.task_ids}
    assert agents == {"page-agent", "state-agent"}
    app = outcome.files["src/App.tsx"]
    intents = {i.agent_id: i for i in state.patch_intents if i.path == "src/App.tsx"}
    base = set(apps.blobs.get(intents["page-agent"].base_key or "").decode().splitlines())
    assert intents["state-agent"].base_key == intents["page-agent"].base_key, "both changed the scaffold's file"
    merged_lines = set(app.splitlines())
    for agent in ("page-agent", "state-agent"):
        version = apps.blobs.get(intents[agent].new_key or "").decode()
        assert app != version, "the merged file is neither agent's version alone"
        added, removed = set(version.splitlines()) - base, base - set(version.splitlines())
        assert added and added <= merged_lines, f"{agent}'s new lines are in the merged file"
        assert not removed & merged_lines, f"the lines {agent} replaced are gone"
    assert not state.conflicts


async def test_the_tasks_of_a_wave_run_side_by_side(env: WorkflowEnvironment, tmp_path: Path) -> None:
    async with app_harness(env, tmp_path, task_delay=0.4) as apps:
        outcome = await apps.run()

    second_wave = set(outcome.state.waves[1])
    spans = [span for span in apps.timer.spans if span.task_id in second_wave]
    assert len(spans) == len(second_wave) == 3
    latest_start = max(span.start for span in spans)
    earliest_end = min(span.end for span in spans)
    assert latest_start < earliest_end, "every task of wave 2 started before any of them ended"


async def test_the_history_carries_references_not_file_contents(apps: AppHarness) -> None:
    outcome = await apps.run()

    history = await outcome.handle.fetch_history()
    text = payload_text(history)
    app = outcome.files["src/App.tsx"]
    assert max(app.splitlines(), key=len) not in text
    assert outcome.files["src/styles.css"][:200] not in text
    assert len(text) < 400_000, f"history is {len(text)} characters"


async def test_issue_27_a_run_whose_offline_analysis_cannot_recognise_the_app_fails_naming_what_it_builds(
    apps: AppHarness,
) -> None:
    outcome = await apps.run("a weather dashboard with a city search")

    assert outcome.result.status == "failed" and not outcome.result.success
    error = outcome.state.error
    assert error is not None and error.code == "OFFLINE_APP_UNSUPPORTED" and error.node == "product_manager"
    assert "todo list" in error.message and "LLM_PROVIDER" in error.message
    assert outcome.types[-2:] == ["error", "done"] and "app_ready" not in outcome.types
    assert not outcome.state.documents and not outcome.state.tasks and not outcome.files, "no todo app instead"
