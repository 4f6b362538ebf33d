"""`POST /v1/writing/projects/{projectId}/chat` (issue 8 item 11): the run's events as SSE with `X-Run-Id`, the
generic run API on the same run, and the clear errors of a request that cannot start one."""

from tests.api.conftest import Gateway
from tests.sse import parse_sse


async def sample_project(gateway: Gateway) -> str:
    http = gateway.http
    project: str = (await http.post("/v1/writing/projects", json={"name": "长夜"})).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "林舟推开门，苏念在等他。"})
    await http.post(f"{base}/characters", json={"name": "林舟", "description": "退役侦探"})
    await http.post(f"{base}/characters", json={"name": "苏念", "description": "记者"})
    return project


async def test_req_1_4_chat_streams_the_runs_events_and_the_run_api_serves_it(gateway: Gateway) -> None:
    project = await sample_project(gateway)

    response = await gateway.http.post(
        f"/v1/writing/projects/{project}/chat", json={"text": "写一段林舟和苏念在码头的场景", "sessionId": "s1"}
    )

    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    run_id = response.headers["x-run-id"]
    events = parse_sse(response.text)
    types = [event.event for event in events]
    assert types[0] == "intent_recognized" and types[-1] == "done"
    assert [event.id for event in events] == list(range(len(events)))
    view = (await gateway.http.get(f"/v1/runs/{run_id}")).json()
    assert view["workflowType"] == "WritingWorkflow" and view["status"] == "completed"
    assert view["state"]["workflow"] == "ContentGeneration" and "林舟" in view["state"]["result"]["text"]


async def test_chat_on_a_project_that_is_not_the_callers_is_404(gateway: Gateway) -> None:
    response = await gateway.http.post("/v1/writing/projects/proj_missing/chat", json={"text": "你好"})

    assert response.status_code == 404 and response.json()["error"]["code"] == "PROJECT_NOT_FOUND"


async def test_a_chain_context_that_cannot_continue_is_refused_with_a_code(gateway: Gateway) -> None:
    project = await sample_project(gateway)
    url = f"/v1/writing/projects/{project}/chat"

    not_a_chain = await gateway.http.post(
        url, json={"text": "B", "chainContext": {"workflow": "ContentGeneration", "steps": []}}
    )
    wrong_order = await gateway.http.post(
        url,
        json={
            "text": "B",
            "chainContext": {"workflow": "BrainstormExpand", "steps": [{"agent": "writer", "text": "…"}]},
        },
    )
    unknown_field = await gateway.http.post(url, json={"text": "B", "chain": {}})

    assert not_a_chain.status_code == wrong_order.status_code == 422
    assert not_a_chain.json()["error"]["code"] == wrong_order.json()["error"]["code"] == "CHAIN_CONTEXT_INVALID"
    assert unknown_field.status_code == 422 and unknown_field.json()["error"]["code"] == "INVALID_REQUEST"
