"""`POST /v1/apps/runs` (issue 10 item 7): the run's events as SSE with `X-Run-Id`, the project as a zip and file
by file, the generic run API on the same run, and clear errors for what cannot be served."""

import io
import zipfile

from tests.api.conftest import Gateway
from tests.sse import parse_sse

TODO = "做一个待办事项应用"


async def test_an_app_run_streams_its_events_and_serves_its_workspace(gateway: Gateway) -> None:
    response = await gateway.http.post("/v1/apps/runs", json={"message": TODO, "platform": "web"})

    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    run_id = response.headers["x-run-id"]
    types = [event.event for event in parse_sse(response.text)]
    assert types[0] == "layer_started" and types[-2:] == ["app_ready", "done"]
    download = await gateway.http.get(f"/v1/apps/runs/{run_id}/workspace.zip")
    assert download.status_code == 200
    assert download.headers["content-disposition"] == f'attachment; filename="{run_id}.zip"'
    with zipfile.ZipFile(io.BytesIO(download.content)) as archive:
        files = {name.removeprefix(f"{run_id}/"): archive.read(name).decode() for name in archive.namelist()}
    listing = (await gateway.http.get(f"/v1/apps/runs/{run_id}/files")).json()
    assert listing["final"] is True
    assert {entry["path"]: entry["size"] for entry in listing["files"]} == {
        path: len(text.encode()) for path, text in files.items()
    }
    one = await gateway.http.get(f"/v1/apps/runs/{run_id}/files/package.json")
    assert one.status_code == 200 and one.text == files["package.json"]
    assert "sandbox" in one.headers["content-security-policy"]
    view = (await gateway.http.get(f"/v1/runs/{run_id}")).json()
    assert view["workflowType"] == "AppBuilderWorkflow" and view["status"] == "completed"
    assert [d["agentId"] for d in view["state"]["documents"]] == [
        "product-manager",
        "frontend-architect",
        "ui-expert",
        "ux-expert",
    ]
    assert view["state"]["success"] is True


async def test_the_generic_run_api_starts_an_app_run(gateway: Gateway) -> None:
    response = await gateway.http.post("/v1/runs", json={"workflow": "AppBuilderWorkflow", "input": {"message": TODO}})

    assert response.status_code == 201, response.text
    run_id = response.json()["runId"]
    events = parse_sse((await gateway.http.get(f"/v1/runs/{run_id}/events")).text)
    assert events[-1].event == "done" and "plan_ready" in [event.event for event in events]
    graph = (await gateway.http.get("/v1/workflows/AppBuilderWorkflow/graph")).text
    assert "quality_gate" in graph and "plan_repair" in graph


async def test_bad_requests_and_missing_things_get_clear_errors(gateway: Gateway) -> None:
    blank = await gateway.http.post("/v1/apps/runs", json={"message": "   "})
    unknown = await gateway.http.post("/v1/apps/runs", json={"message": TODO, "framework": "vue"})
    assert blank.status_code == unknown.status_code == 422
    assert blank.json()["error"]["code"] == unknown.json()["error"]["code"] == "INVALID_REQUEST"

    missing_run = await gateway.http.get("/v1/apps/runs/app-nothing/workspace.zip")
    assert missing_run.status_code == 404 and missing_run.json()["error"]["code"] == "RUN_NOT_FOUND"

    response = await gateway.http.post("/v1/apps/runs", json={"message": TODO})
    run_id = response.headers["x-run-id"]
    for path in ("src/nothing.ts", "..%2Fpackage.json", "%2Fetc%2Fpasswd"):
        missing = await gateway.http.get(f"/v1/apps/runs/{run_id}/files/{path}")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "FILE_NOT_FOUND", path


async def test_a_run_of_another_workflow_has_no_workspace(gateway: Gateway) -> None:
    content = await gateway.http.post("/v1/content/runs", json={"topic": "咖啡", "platform": "weibo"})
    content_id = content.headers["x-run-id"]

    not_an_app = await gateway.http.get(f"/v1/apps/runs/{content_id}/workspace.zip")

    assert not_an_app.status_code == 404 and not_an_app.json()["error"]["code"] == "RUN_NOT_FOUND"


async def test_issue_25_a_tech_stack_the_builder_does_not_write_is_refused_with_its_code(gateway: Gateway) -> None:
    vue = await gateway.http.post("/v1/apps/runs", json={"message": TODO, "techStack": ["Vue 3", "TypeScript"]})
    generic = await gateway.http.post(
        "/v1/runs", json={"workflow": "AppBuilderWorkflow", "input": {"message": TODO, "techStack": ["Svelte"]}}
    )

    assert vue.status_code == generic.status_code == 422
    assert vue.json()["error"]["code"] == generic.json()["error"]["code"] == "TECH_STACK_UNSUPPORTED"
    assert "Vue 3" in vue.json()["error"]["message"] and "TypeScript" not in vue.json()["error"]["message"][:12]


async def test_issue_25_the_stack_the_builder_writes_is_accepted_in_any_spelling(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/apps/runs", json={"message": TODO, "techStack": ["React.js", "typescript", "Vite"]}
    )

    assert response.status_code == 200 and parse_sse(response.text)[-1].event == "done"
