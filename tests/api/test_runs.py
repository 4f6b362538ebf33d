"""The generic run API over the in-process gateway: start any registered workflow, its typed state, its events
(resumable across continue-as-new), the registered workflows, and the refusals with their codes."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.sse import parse_sse
from tests.workflows.common.tiny import TINY_WORKFLOWS
from workflows.registry import REGISTRY


@pytest.fixture
async def platform(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[Gateway]:
    """The gateway with every family plus the tiny test family, each with its worker."""
    async with running_gateway(env, tmp_path, api_style_store, registry=REGISTRY.extended(*TINY_WORKFLOWS)) as gateway:
        yield gateway


async def test_post_runs_starts_the_image_agent_in_a_session(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/runs", json={"workflow": "ImageAgentWorkflow", "input": {"text": "生成一只猫"}, "sessionId": "generic"}
    )
    gateway.sessions.add("session-local-generic")

    assert response.status_code == 201, response.text
    ticket = response.json()
    run_id = ticket.pop("runId")
    assert run_id.startswith("image-generic-1-")
    assert ticket == {"workflow": "ImageAgentWorkflow", "sessionId": "generic", "position": 0}
    assert response.headers["location"] == f"/v1/runs/{run_id}"
    events = parse_sse((await gateway.http.get(f"/v1/runs/{run_id}/events")).text)
    assert events[-1].event == "stream_end" and events[-1].data["terminal"] is True
    view = (await gateway.http.get(f"/v1/runs/{run_id}")).json()
    assert view["workflowType"] == "ImageAgentWorkflow" and view["state"]["intent"]["action"] == "generate_image"
    session = (await gateway.http.get("/v1/runs/session-local-generic")).json()
    assert session["workflowType"] == "ImageSessionWorkflow" and session["state"]["turns"] == 1


async def test_post_runs_streams_the_run_when_asked_for_server_sent_events(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/runs",
        json={"workflow": "ImageAgentWorkflow", "input": {"text": "画一只猫"}, "sessionId": "streamed"},
        headers={"accept": "text/event-stream"},
    )
    gateway.sessions.add("session-local-streamed")

    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["x-run-id"].startswith("image-streamed-1-")
    events = parse_sse(response.text)
    assert [e.id for e in events] == list(range(len(events))) and events[-1].event == "stream_end"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"workflow": "NoSuchWorkflow", "input": {}}, 404, "WORKFLOW_NOT_FOUND"),
        ({"workflow": "ImageSessionWorkflow", "input": {}}, 400, "WORKFLOW_NOT_STARTABLE"),
        ({"workflow": "ImageAgentWorkflow", "input": {"text": ["not", "text"]}}, 422, "INVALID_REQUEST"),
        ({"workflow": "ImageAgentWorkflow", "input": {"preferredModel": "dall-e"}}, 422, "INVALID_REQUEST"),
        ({"workflow": "ImageAgentWorkflow", "input": {}, "sessionId": "../x"}, 422, "INVALID_REQUEST"),
    ],
)
async def test_post_runs_refuses_with_a_code(gateway: Gateway, body: dict[str, object], status: int, code: str) -> None:
    response = await gateway.http.post("/v1/runs", json=body)

    assert response.status_code == status and response.json()["error"]["code"] == code


async def test_an_invalid_input_lists_the_input_models_errors(gateway: Gateway) -> None:
    body = {"workflow": "ImageAgentWorkflow", "input": {"text": ["x"], "preferredModel": "dall-e"}}
    response = await gateway.http.post("/v1/runs", json=body)

    details = response.json()["error"]["details"]
    assert {tuple(d["loc"]) for d in details} >= {("input", "text"), ("input", "preferredModel")}


async def test_the_registered_workflows_are_listed_with_input_events_and_graph(gateway: Gateway) -> None:
    listed = {w["name"]: w for w in (await gateway.http.get("/v1/workflows")).json()}

    agent, session = listed["ImageAgentWorkflow"], listed["ImageSessionWorkflow"]
    assert (agent["family"], agent["startable"], session["startable"]) == ("image", True, False)
    assert agent["taskQueue"] == gateway.settings.task_queue("image")
    assert {"text", "maskData", "preferredModel"} <= set(agent["inputSchema"]["properties"])
    assert agent["terminalEvent"] == "stream_end"
    assert {"queued", "thought_log", "progress", "gen_ui_component", "error", "stream_end"} == set(agent["eventTypes"])
    assert agent["graph"].startswith("graph TD") and session["graph"] is None
    assert session["eventTypes"] == {} and session["inputSchema"] is None


async def test_run_state_is_typed_per_workflow_in_the_openapi_schema(gateway: Gateway) -> None:
    schema = (await gateway.http.get("/openapi.json")).json()
    ok = schema["paths"]["/v1/runs/{run_id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]

    variants = {ref["$ref"].rsplit("/", 1)[-1] for ref in ok["oneOf"]}
    assert variants == {
        "ImageAgentWorkflowRun",
        "ImageSessionWorkflowRun",
        "WritingWorkflowRun",
        "RelationshipGraphWorkflowRun",
        "ContentSupervisorWorkflowRun",
        "ContentEditWorkflowRun",
        "AppBuilderWorkflowRun",
        "EchoWorkflowRun",
    }
    assert ok["discriminator"]["propertyName"] == "workflowType"
    components = schema["components"]["schemas"]
    state = components["ImageAgentWorkflowRun"]["properties"]["state"]
    assert {"$ref": "#/components/schemas/ImageAgentState"} in state["anyOf"]
    assert components["ImageAgentState"]["properties"]["executionResult"]["anyOf"][0]["$ref"].endswith(
        "ExecutionResult"
    )


async def test_a_session_has_no_event_stream(gateway: Gateway) -> None:
    body = {"workflow": "ImageAgentWorkflow", "input": {"text": "猫"}, "sessionId": "quiet"}
    run_id = (await gateway.http.post("/v1/runs", json=body)).json()["runId"]
    gateway.sessions.add("session-local-quiet")
    assert parse_sse((await gateway.http.get(f"/v1/runs/{run_id}/events")).text)[-1].event == "stream_end"

    response = await gateway.http.get("/v1/runs/session-local-quiet/events")

    assert response.status_code == 409 and response.json()["error"]["code"] == "NO_EVENT_STREAM"


async def test_events_resume_across_continue_as_new_over_http(platform: Gateway) -> None:
    started = await platform.http.post(
        "/v1/runs", json={"workflow": "CountingWorkflow", "input": {"perRun": 2, "runs": 3}}
    )
    run_id = started.json()["runId"]
    platform.sessions.add(run_id)

    everything = parse_sse((await platform.http.get(f"/v1/runs/{run_id}/events")).text)
    resumed = parse_sse((await platform.http.get(f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": "2"})).text)

    assert [e.id for e in everything] == list(range(7)) and everything[-1].event == "done"
    assert [e.id for e in resumed] == [3, 4, 5, 6]
    assert [e.data for e in resumed] == [e.data for e in everything[3:]]
