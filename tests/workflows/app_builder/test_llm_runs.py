"""App runs with a (scripted) model: the UI and UX experts writing at once, schema validation of the documents, plan
validation and its one repair round, writing agents as tool loops, failures that skip only their dependents,
conflicts, and the quality gate's repair rounds and their bound. The model is the loopback server answering by
request (`scripts.ScriptedModel`)."""

import json
from typing import Any

from models.app_builder.documents import ANALYSIS_ORDER, AnalysisAgentID
from models.app_builder.nodes import ANALYSIS
from tests.llm.answers import chat_completion
from tests.llm.loopback import Loopback
from tests.workflows.app_builder.harness import AppHarness, payload_text
from tests.workflows.app_builder.scripts import REFUSED, ScriptedModel, task
from workflows.common.patches import DECIDED_AT_START

MISSING_IMPORT = 'import Missing from "./Missing";\n\nexport default function App() {\n  return <Missing />;\n}\n'
FIXED = {"src/Missing.tsx": "export default function Missing() {\n  return null;\n}\n"}


def gated(*writers: dict[str, Any]) -> list[dict[str, Any]]:
    """scaffold, the given writing tasks after it, a quality task after all of them and a repair task."""
    ids = [w["id"] for w in writers]
    quality = task("quality", "quality-agent", ids or ["scaffold"], ["parse_files", "resolve_imports"])
    return [task("scaffold", "scaffold-agent"), *writers, quality, task("repair", "repair-agent", ["quality"])]


async def test_a_plan_with_a_cycle_gets_one_repair_round_with_the_cycle_named(
    scripted: AppHarness, loopback: Loopback
) -> None:
    cyclic = [task("scaffold", "scaffold-agent", ["pages"]), task("pages", "page-agent", ["scaffold"])]
    model = ScriptedModel(plans=[cyclic, gated()])
    loopback.responder = model

    outcome = await scripted.run()

    assert outcome.result.status == "completed"
    assert outcome.path[4:7] == ["planner", "plan_repair", "wave"]
    [ready] = outcome.of_type("plan_ready")
    assert ready.data["repaired"] is True
    assert [issue.code for issue in outcome.state.plan_issues] == ["cycle"]
    assert "dependency cycle: scaffold → pages → scaffold" in model.planner_requests[1]


async def test_a_plan_of_only_repair_tasks_goes_to_the_repair_round(scripted: AppHarness, loopback: Loopback) -> None:
    model = ScriptedModel(plans=[[task("repair", "repair-agent")], gated()])
    loopback.responder = model

    outcome = await scripted.run()

    assert outcome.result.status == "completed"
    assert outcome.path[4:7] == ["planner", "plan_repair", "wave"]
    assert [issue.code for issue in outcome.state.plan_issues] == ["no_tasks"]
    assert "only repair-agent tasks" in model.planner_requests[1]


async def test_a_plan_still_invalid_after_its_repair_round_fails_naming_every_problem(
    scripted: AppHarness, loopback: Loopback
) -> None:
    dangling = [task("scaffold", "scaffold-agent"), task("pages", "page-agent", ["ghost"])]
    loopback.responder = ScriptedModel(plans=[dangling, dangling])

    outcome = await scripted.run()

    assert outcome.result.status == "failed"
    error = outcome.state.error
    assert error is not None and error.code == "PLAN_INVALID" and error.node == "plan_repair"
    assert "task 'pages' depends on 'ghost', which is not a task of this plan" in error.message
    assert not outcome.of_type("wave_started") and not outcome.state.workspace.files
    assert outcome.types[-2:] == ["error", "done"]


async def test_issue_25_a_plan_naming_agents_or_tools_outside_the_registries_goes_back_to_the_model_with_why(
    scripted: AppHarness, loopback: Loopback
) -> None:
    bad = [
        task("scaffold", "scaffold-agent", tools=["list_files", "rm_rf", "write_file"]),
        task("design", "designer-agent", ["scaffold"]),
        task("pages", "page-agent", ["scaffold"], tools=["read_file"]),
    ]
    model = ScriptedModel(plans=[bad, gated()])
    loopback.responder = model

    outcome = await scripted.run()

    assert outcome.result.status == "completed" and outcome.state.success
    [ready] = outcome.of_type("plan_ready")
    assert ready.data["repaired"] is False, "the client's repair round fixed it, not the workflow's"
    writing = model.plan_schemas[0]["$defs"]["WritingTask"]["properties"]
    assert writing["agentId"]["enum"] == [
        "scaffold-agent",
        "page-agent",
        "interaction-agent",
        "state-agent",
        "style-agent",
        "repair-agent",
    ]
    assert "rm_rf" not in writing["tools"]["items"]["enum"] and writing["tools"]["contains"] == {"const": "write_file"}
    [repair] = model.plan_repairs
    for reason in ("tasks.0.scaffold-agent.tools.1: Input should be", "tag 'designer-agent'", "needs the write_file"):
        assert reason in repair, repair


async def test_the_ui_and_ux_experts_are_scheduled_together_on_the_documents_before_them(
    scripted: AppHarness, loopback: Loopback
) -> None:
    loopback.responder = ScriptedModel(plans=[gated()])

    outcome = await scripted.run()

    assert outcome.result.status == "completed"
    history = await outcome.handle.fetch_history()
    experts = [ANALYSIS[AnalysisAgentID.UI_EXPERT].name, ANALYSIS[AnalysisAgentID.UX_EXPERT].name]
    scheduled = [
        event
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
        and event.activity_task_scheduled_event_attributes.activity_type.name in experts
    ]
    ids = [event.event_id for event in scheduled]
    completed = [
        event.event_id
        for event in history.events
        if event.HasField("activity_task_completed_event_attributes")
        and event.activity_task_completed_event_attributes.scheduled_event_id in ids
    ]
    assert [e.activity_task_scheduled_event_attributes.activity_type.name for e in scheduled] == experts
    assert len(completed) == 2 and max(ids) < min(completed), "both scheduled before either completed"
    for event in scheduled:
        request = json.loads(event.activity_task_scheduled_event_attributes.input.payloads[0].data)
        read = [document["agentId"] for document in request["previousDocuments"]]
        assert read == ["product-manager", "frontend-architect"], "each reads the waves before it, not the other"
    markers = [
        e.marker_recorded_event_attributes for e in history.events if e.HasField("marker_recorded_event_attributes")
    ]
    assert DECIDED_AT_START in str(markers[0].details), "behind its patch, decided at the run's start"
    ready = [event.data["agentId"] for event in outcome.of_type("document_ready")]
    assert ready == [agent.value for agent in ANALYSIS_ORDER], "the events keep the seed's order"
    assert [d.agent_id for d in outcome.state.documents] == list(ANALYSIS_ORDER)
    assert outcome.path[:5] == ["product_manager", "frontend_architect", "ui_expert", "ux_expert", "planner"]


async def test_a_ux_expert_that_fails_beside_the_ui_expert_stops_the_layer_naming_it(
    scripted: AppHarness, loopback: Loopback
) -> None:
    loopback.responder = ScriptedModel(plans=[gated()], documents={AnalysisAgentID.UX_EXPERT: REFUSED})

    outcome = await scripted.run()

    assert outcome.result.status == "failed"
    error = outcome.state.error
    assert error is not None and error.code == "ANALYSIS_FAILED" and error.node == "ux_expert"
    assert [event.data["agentId"] for event in outcome.of_type("document_ready")] == [
        agent.value for agent in ANALYSIS_ORDER[:3]
    ]
    assert "planner" not in outcome.path and outcome.types[-2:] == ["error", "done"]


async def test_a_document_that_misses_its_schema_stops_the_layer_and_names_the_agent(
    scripted: AppHarness, loopback: Loopback
) -> None:
    invalid = chat_completion({"componentTree": [], "routeDesign": []})
    model = ScriptedModel(plans=[gated()], documents={AnalysisAgentID.FRONTEND_ARCHITECT: invalid})
    loopback.responder = model

    outcome = await scripted.run()

    assert outcome.result.status == "failed"
    error = outcome.state.error
    assert error is not None and error.code == "DOCUMENT_INVALID" and error.node == "frontend_architect"
    assert "frontend-architect" in error.message and "FrontendArchitectDocument" in error.message
    assert [d.agent_id for d in outcome.state.documents] == [AnalysisAgentID.PRODUCT_MANAGER]
    assert not any("You are the UI expert" in r.body.decode() for r in loopback.requests), "the layer stopped"


async def test_a_failed_task_skips_its_dependents_and_nothing_else(scripted: AppHarness, loopback: Loopback) -> None:
    plan = gated(
        task("pages", "page-agent", ["scaffold"]),
        task("styles", "style-agent", ["scaffold"]),
        task("wiring", "interaction-agent", ["pages"]),
    )
    plan[-2]["dependsOn"] = ["styles"]  # the quality task waits for styles only
    styles = {"src/styles.css": ":root { --accent: #2563eb; }\n"}
    loopback.responder = ScriptedModel(plans=[plan], writes={"styles": styles}, refuse={"pages"})

    outcome = await scripted.run()

    statuses = {task_id: record.status for task_id, record in outcome.state.tasks.items()}
    assert statuses == {
        "scaffold": "completed",
        "pages": "failed",
        "styles": "completed",
        "wiring": "skipped",
        "quality": "completed",
        "repair": "not_needed",
    }
    assert outcome.result.status == "completed" and not outcome.result.success
    assert outcome.result.failed_tasks == ["pages"] and outcome.result.skipped_tasks == ["wiring"]
    [skipped] = [e for e in outcome.of_type("task_finished") if e.data["taskId"] == "wiring"]
    assert "pages" in skipped.data["error"]
    assert outcome.files["src/styles.css"] == styles["src/styles.css"]


async def test_writing_agents_are_tool_loops_with_one_activity_per_call(
    scripted: AppHarness, loopback: Loopback
) -> None:
    loopback.responder = ScriptedModel(plans=[gated()])

    outcome = await scripted.run()

    history = await outcome.handle.fetch_history()
    activities = [
        event.activity_task_scheduled_event_attributes.activity_type.name
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
    ]
    ids = {
        event.activity_task_scheduled_event_attributes.activity_id
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
    }
    assert {"scaffold-turn-1", "scaffold-turn-2", *(f"scaffold-tool-{n}" for n in range(1, 5))} <= ids
    assert activities.count("app_builder.task_tool") == 4, "scaffold wrote its four files, one call each"
    assert activities.count("app_builder.task_turn") == 2, "a turn with the calls, a turn with the summary"
    assert outcome.state.tasks["scaffold"].files == sorted(
        ["index.html", "package.json", "src/App.tsx", "src/main.tsx"]
    )
    assert outcome.state.success


async def test_overlapping_changes_to_one_file_are_a_conflict_that_keeps_both_versions(
    scripted: AppHarness, loopback: Loopback
) -> None:
    first = "export default function App() {\n  return <main>first</main>;\n}\n"
    second = "export default function App() {\n  return <main>second</main>;\n}\n"
    plan = gated(task("one", "page-agent", ["scaffold"]), task("two", "state-agent", ["scaffold"]))
    writes = {"one": {"src/App.tsx": first}, "two": {"src/App.tsx": second}}
    loopback.responder = ScriptedModel(plans=[plan], writes=writes)

    outcome = await scripted.run()

    [event] = outcome.of_type("conflict")
    assert event.data["path"] == "src/App.tsx" and event.data["merged"] is False
    assert event.data["keptTaskId"] == "one"
    [conflict] = outcome.state.conflicts
    assert set(conflict.versions) == {"one", "two"}
    kept = {task_id: scripted.blobs.get(key or "").decode() for task_id, key in conflict.versions.items()}
    assert kept == {"one": first, "two": second}, "both versions are kept"
    assert outcome.files["src/App.tsx"] == first


async def test_the_repair_agent_gets_the_findings_and_the_next_check_passes(
    scripted: AppHarness, loopback: Loopback
) -> None:
    plan = gated(task("pages", "page-agent", ["scaffold"]))
    model = ScriptedModel(plans=[plan], writes={"pages": {"src/App.tsx": MISSING_IMPORT}}, repairs=[FIXED])
    loopback.responder = model

    outcome = await scripted.run()

    rounds = [(e.data["round"], e.data["passed"]) for e in outcome.of_type("quality_result")]
    assert rounds == [(0, False), (1, True)]
    assert [e.data["round"] for e in outcome.of_type("repair_round")] == [1]
    assert "./Missing" in model.repair_requests[0], "the repair agent reads the findings"
    assert outcome.state.tasks["repair"].status == "completed"
    assert outcome.state.success and not outcome.state.unresolved_issues


async def test_after_two_repair_rounds_the_remaining_tasks_are_degraded(
    scripted: AppHarness, loopback: Loopback
) -> None:
    plan = gated(task("pages", "page-agent", ["scaffold"]))
    loopback.responder = ScriptedModel(plans=[plan], writes={"pages": {"src/Page.tsx": MISSING_IMPORT}})

    outcome = await scripted.run()

    assert [e.data["round"] for e in outcome.of_type("quality_result")] == [0, 1, 2]
    assert [e.data["round"] for e in outcome.of_type("repair_round")] == [1, 2], "at most two repair rounds"
    state = outcome.state
    assert state.degraded_tasks == ["pages", "quality", "repair"]
    assert state.tasks["scaffold"].status == "completed", "a task whose files have no finding is not degraded"
    assert any("./Missing" in issue for issue in state.unresolved_issues)
    assert outcome.result.status == "completed" and not outcome.result.success
    [ready] = outcome.of_type("app_ready")
    assert ready.data["unresolvedIssues"] == state.unresolved_issues


BIG_FILE = "".join(f"export const line{n} = 'a line of the generated catalogue, number {n}';\n" for n in range(1600))
"""About 100 KB of TypeScript, as a model writes a large data module."""


async def test_issue_25_a_file_the_model_wrote_travels_by_blob_key_not_through_the_history(
    scripted: AppHarness, loopback: Loopback
) -> None:
    catalogue = task("catalogue", "page-agent", ["scaffold"])
    loopback.responder = ScriptedModel(plans=[gated(catalogue)], writes={"catalogue": {"src/catalogue.ts": BIG_FILE}})

    outcome = await scripted.run()

    assert outcome.files["src/catalogue.ts"] == BIG_FILE
    carried = payload_text(await outcome.handle.fetch_history())
    assert carried.count("line1234 = 'a line") == 0, "the file's text is in the history"
    assert len(carried) < 150_000, f"the history carries {len(carried)} characters"


async def test_issue_25_a_file_the_model_read_travels_by_blob_key_and_reaches_the_model_whole(
    scripted: AppHarness, loopback: Loopback
) -> None:
    catalogue = task("catalogue", "page-agent", ["scaffold"])
    reader = task("reader", "page-agent", ["catalogue"])
    model = ScriptedModel(
        plans=[gated(catalogue, reader)],
        writes={"catalogue": {"src/App.tsx": BIG_FILE}, "reader": {"src/Reader.tsx": "export const r = 1;\n"}},
        strays={"reader": "read_file"},
    )
    loopback.responder = model

    outcome = await scripted.run()

    [read] = [m["content"] for m in model.turns["reader"][1]["messages"] if m["role"] == "tool"]
    assert read == BIG_FILE[:60_000], "the model reads the file's text"
    carried = payload_text(await outcome.handle.fetch_history())
    assert carried.count("line123 = 'a line") == 0, "the text the model read is in the history"
    assert outcome.state.success


async def test_issue_25_a_tool_the_task_was_not_given_is_refused_to_the_model(
    scripted: AppHarness, loopback: Loopback
) -> None:
    writer = task("writer", "page-agent", ["scaffold"], tools=["list_files", "write_file"])
    model = ScriptedModel(plans=[gated(writer)], strays={"writer": "read_file"})
    loopback.responder = model

    outcome = await scripted.run()

    first, second = model.turns["writer"]
    assert sorted(t["function"]["name"] for t in first["tools"]) == ["list_files", "write_file"]
    [refusal] = [m["content"] for m in second["messages"] if m["role"] == "tool"]
    assert "'read_file' was not given to this task" in refusal
    assert outcome.result.status == "completed"


async def test_issue_25_tool_call_arguments_that_are_not_json_go_back_to_the_model(
    scripted: AppHarness, loopback: Loopback
) -> None:
    pages = task("pages", "page-agent", ["scaffold"])
    model = ScriptedModel(
        plans=[gated(pages)], writes={"pages": {"src/Pages.tsx": "export const p = 1;\n"}}, garble={"pages"}
    )
    loopback.responder = model

    outcome = await scripted.run()

    turns = model.turns["pages"]
    [reason] = [m["content"] for m in turns[1]["messages"] if m["role"] == "tool"]
    assert "write_file was not run" in reason and "not JSON" in reason
    assert outcome.files["src/Pages.tsx"] == "export const p = 1;\n"
    assert outcome.state.tasks["pages"].status == "completed" and outcome.state.success


async def test_issue_25_a_run_whose_tasks_wrote_no_file_is_not_a_success(
    scripted: AppHarness, loopback: Loopback
) -> None:
    loopback.responder = ScriptedModel(plans=[[task("pages", "page-agent")]])

    outcome = await scripted.run()

    assert outcome.state.tasks["pages"].status == "completed" and not outcome.state.workspace.files
    [ready] = outcome.of_type("app_ready")
    assert ready.data["success"] is False and outcome.result.success is False
    warnings = [e.data["message"] for e in outcome.of_type("thought_log") if e.data["level"] == "warning"]
    assert any("没有写出任何文件" in message for message in warnings), warnings
