"""Follow-up changes (issue 27 item 2) over HTTP on the model simulator: round 1 builds an app, round 2
(`fromRun`) starts from its final workspace, updates its documents and plans against its files; the rounds list
and the diff say what each round changed; a base that is not ready, not the caller's, past the chain's cap or
asked for offline is refused with its code."""

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.app_builder.prompts import PLANNER_SYSTEM
from models.app_builder.workspace import WorkspaceRef
from models.search_attributes import SESSION_ID
from stores.app_workspace import load_manifest
from stores.style_store import LanceStyleStore
from tests.api.app_builder.project_author import DARK_MODE as DARK_MODE_FILES
from tests.api.app_builder.project_author import TODO_APP, project_files, todo_then_dark_mode
from tests.api.conftest import Gateway, running_gateway
from tests.simulator.fixtures import simulator_settings
from tests.simulator.profiles import REALISTIC
from tests.simulator.server import Simulator
from tests.sse import parse_sse

TIME_SCALE = 0.02
TODO = "做一个待办事项应用：可以添加、完成和删除待办"
DARK_MODE = "加一个深色模式切换按钮"
ALICE = {"authorization": "Bearer alice-key"}
BOB = {"authorization": "Bearer bob-key"}
KEYS = "alice=alice-key,bob=bob-key"
MAX_ROUNDS = 2


@pytest.fixture
async def keyed(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, simulator: Simulator
) -> AsyncIterator[Gateway]:
    """The gateway on the simulator with two principals and a chain of at most `MAX_ROUNDS` rounds; the model writes
    the todo app's files, then the dark mode's (the simulator's made-up paths could rewrite every file of round 1)."""
    simulator.profile, simulator.time_scale = REALISTIC, TIME_SCALE
    simulator.style = replace(simulator.style, tool_author=todo_then_dark_mode())
    settings = simulator_settings(simulator) | {"api_keys": KEYS, "app_max_rounds": MAX_ROUNDS}
    async with running_gateway(env, tmp_path, api_style_store, **settings) as gateway:
        yield gateway


async def round_of(gateway: Gateway, body: dict[str, Any]) -> tuple[str, list[Any], dict[str, Any]]:
    response = await gateway.http.post("/v1/apps/runs", json=body, headers=ALICE)
    assert response.status_code == 200, response.text
    run_id = response.headers["x-run-id"]
    view = (await gateway.http.get(f"/v1/runs/{run_id}", headers=ALICE)).json()
    return run_id, parse_sse(response.text), view


def manifest(gateway: Gateway, view: dict[str, Any]) -> dict[str, str]:
    return load_manifest(gateway.blobs, WorkspaceRef.model_validate(view["state"]["workspace"]))


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code, response.text


async def test_round_two_changes_round_one_s_project_and_keeps_the_rest(keyed: Gateway, simulator: Simulator) -> None:
    first, _, first_view = await round_of(
        keyed, {"message": TODO, "sessionId": "todo", "platform": "web", "techStack": ["React", "TypeScript"]}
    )
    assert first_view["state"]["success"], first_view["state"]
    calls_before = len(simulator.log)

    second, events, second_view = await round_of(keyed, {"message": DARK_MODE, "fromRun": first})

    state = second_view["state"]
    assert state["round"] == 2 and state["baseRunId"] == first and state["earlierMessages"] == [TODO]
    assert state["brief"] == {
        "message": DARK_MODE,
        "platform": "web",
        "techStack": ["React", "TypeScript"],
        "earlierMessages": [TODO],
    }
    assert second_view["status"] == "completed" and state["success"], state
    documents = [e.data["data"] for e in events if e.event == "document_ready"]
    assert [(d["version"], d["update"]) for d in documents] == [(2, True)] * 4
    assert [d["version"] for d in state["documents"]] == [2] * 4
    # the analysis requests carried each agent's earlier document, the planner's the project's files
    requests = [call.request for call in simulator.log[calls_before:]]
    earlier = {d["agentId"]: d["content"] for d in first_view["state"]["documents"]}
    updates = [r.last_user_text for r in requests if "Update your document for this change" in r.last_user_text]
    assert len(updates) == 4 and all(DARK_MODE in text and TODO in text for text in updates)
    for content in earlier.values():  # the UI and UX experts write at once: their requests come in either order
        own = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
        assert any(own in text for text in updates), "each agent updates its own earlier document"
    before, after = manifest(keyed, first_view), manifest(keyed, second_view)
    planner = [r.last_user_text for r in requests if r.system == PLANNER_SYSTEM]
    assert planner and all(f"- {path}: " in planner[0] for path in before)
    # files no task of round 2 wrote are byte-identical to round 1's
    written = {path for task in state["tasks"].values() for path in task["files"]}
    kept = set(before) - written
    assert kept, "round 2 kept some of round 1's files"
    for path in kept:
        assert keyed.blobs.get(after[path]) == keyed.blobs.get(before[path]), path
    # the rounds and the diff say what changed
    expected = {
        path: "added" if path not in before else "removed" if path not in after else "modified"
        for path in before.keys() | after.keys()
        if before.get(path) != after.get(path)
    }
    assert expected and set(expected) <= written
    ready = next(e.data["data"] for e in events if e.event == "app_ready")
    counts = {status: list(expected.values()).count(status) for status in ("added", "modified", "removed")}
    assert ready["round"] == 2 and ready["baseRunId"] == first and ready["changes"] == counts
    rounds = (await keyed.http.get(f"/v1/apps/runs/{second}/rounds", headers=ALICE)).json()
    assert [(r["runId"], r["round"], r["message"]) for r in rounds["rounds"]] == [
        (first, 1, TODO),
        (second, 2, DARK_MODE),
    ]
    assert rounds["complete"] and rounds["rounds"][1]["changes"] == counts
    assert rounds["rounds"][0]["changes"] == {"added": len(before), "modified": 0, "removed": 0}
    diff = (await keyed.http.get(f"/v1/apps/runs/{second}/diff", headers=ALICE)).json()
    assert {f["path"]: f["status"] for f in diff["files"]} == expected
    for entry in diff["files"]:
        assert entry["diff"] and entry["additions"] + entry["deletions"] > 0, entry
    first_diff = (await keyed.http.get(f"/v1/apps/runs/{first}/diff", headers=ALICE)).json()
    assert {f["path"] for f in first_diff["files"]} == set(before)
    assert all(f["status"] == "added" and f["deletions"] == 0 for f in first_diff["files"])
    # round 2 kept round 1's session; any round downloads as its own zip
    described = await keyed.env.client.get_workflow_handle(second).describe()
    assert described.typed_search_attributes.get(SESSION_ID) == "todo"
    for run_id in (first, second):
        assert (await keyed.http.get(f"/v1/apps/runs/{run_id}/workspace.zip", headers=ALICE)).status_code == 200

    # another principal's run is a run that does not exist, for the follow-up and the rounds alike
    bob = await keyed.http.post("/v1/apps/runs", json={"message": DARK_MODE, "fromRun": first}, headers=BOB)
    refused(bob, 404, "RUN_NOT_FOUND")
    for path in (f"/v1/apps/runs/{second}/rounds", f"/v1/apps/runs/{second}/diff"):
        refused(await keyed.http.get(path, headers=BOB), 404, "RUN_NOT_FOUND")
    # past the chain's cap
    capped = await keyed.http.post("/v1/apps/runs", json={"message": DARK_MODE, "fromRun": second}, headers=ALICE)
    refused(capped, 422, "ROUND_LIMIT_REACHED")


async def test_a_base_still_running_or_without_files_is_not_ready(keyed: Gateway) -> None:
    started = await keyed.http.post(
        "/v1/runs", json={"workflow": "AppBuilderWorkflow", "input": {"message": TODO}}, headers=ALICE
    )
    assert started.status_code == 201, started.text
    running = started.json()["runId"]

    follow_up = {"workflow": "AppBuilderWorkflow", "input": {"message": DARK_MODE, "fromRun": running}}
    refused(await keyed.http.post("/v1/runs", json=follow_up, headers=ALICE), 409, "BASE_NOT_READY")
    assert (await keyed.http.post(f"/v1/runs/{running}/cancel", headers=ALICE)).status_code < 300
    events = parse_sse((await keyed.http.get(f"/v1/runs/{running}/events", headers=ALICE)).text)
    assert events[-1].event == "done"
    empty = await keyed.http.post("/v1/apps/runs", json={"message": DARK_MODE, "fromRun": running}, headers=ALICE)
    refused(empty, 409, "BASE_NOT_READY")
    missing = await keyed.http.post(
        "/v1/apps/runs", json={"message": DARK_MODE, "fromRun": "app-0123456789abcdef"}, headers=ALICE
    )
    refused(missing, 404, "RUN_NOT_FOUND")


async def test_a_full_gateway_refuses_a_bad_base_at_once_rather_than_queueing_it(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, simulator: Simulator
) -> None:
    settings = simulator_settings(simulator) | {"max_runs_in_flight": 1}
    async with running_gateway(env, tmp_path, api_style_store, **settings) as gateway:
        started = await gateway.http.post(
            "/v1/runs", json={"workflow": "AppBuilderWorkflow", "input": {"message": TODO}}
        )
        running = started.json()["runId"]

        follow_up = await gateway.http.post("/v1/apps/runs", json={"message": DARK_MODE, "fromRun": running})

        await gateway.http.post(f"/v1/runs/{running}/cancel")
    refused(follow_up, 409, "BASE_NOT_READY")


async def test_offline_a_follow_up_is_refused_and_a_bad_run_id_is_invalid(gateway: Gateway) -> None:
    offline = await gateway.http.post("/v1/apps/runs", json={"message": DARK_MODE, "fromRun": "app-0123456789abcdef"})
    generic = await gateway.http.post(
        "/v1/runs",
        json={"workflow": "AppBuilderWorkflow", "input": {"message": DARK_MODE, "fromRun": "app-0123456789abcdef"}},
    )
    bad = await gateway.http.post("/v1/apps/runs", json={"message": DARK_MODE, "fromRun": "../app-1"})

    refused(offline, 422, "OFFLINE_FOLLOWUP_UNSUPPORTED")
    refused(generic, 422, "OFFLINE_FOLLOWUP_UNSUPPORTED")
    assert "model" in offline.json()["error"]["message"]
    refused(bad, 422, "INVALID_REQUEST")


@pytest.mark.toolchain
async def test_issue_27_a_dark_mode_toggle_on_the_model_s_todo_app_changes_what_it_must_and_builds(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, simulator: Simulator
) -> None:
    simulator.style = replace(simulator.style, tool_author=todo_then_dark_mode())
    settings = simulator_settings(simulator) | {"app_toolchain_checks": "on"}
    async with running_gateway(env, tmp_path, api_style_store, **settings) as gateway:
        first = (await gateway.http.post("/v1/apps/runs", json={"message": TODO})).headers["x-run-id"]
        response = await gateway.http.post(
            "/v1/apps/runs", json={"message": "add a dark mode toggle", "fromRun": first}
        )
        second = response.headers["x-run-id"]
        views = [(await gateway.http.get(f"/v1/runs/{run_id}")).json() for run_id in (first, second)]
        rounds = (await gateway.http.get(f"/v1/apps/runs/{second}/rounds")).json()["rounds"]
        diff = (await gateway.http.get(f"/v1/apps/runs/{second}/diff")).json()["files"]
        files = {path: gateway.blobs.get(key).decode() for path, key in manifest(gateway, views[1]).items()}

    state = views[1]["state"]
    assert views[0]["state"]["success"] and state["success"], state["unresolvedIssues"]
    assert {"typecheck", "build"} <= set(state["quality"][-1]["checksRun"])
    assert state["preview"]["workspaceRef"] == state["workspace"]["manifestRef"], "round 2's own build"
    changed = project_files(DARK_MODE_FILES)
    assert files == project_files(TODO_APP) | changed, "the change, and the rest of round 1 as it was"
    assert {f["path"]: f["status"] for f in diff} == {
        path: "modified" if path in project_files(TODO_APP) else "added" for path in changed
    }
    assert [(r["round"], r["success"]) for r in rounds] == [(1, True), (2, True)]
