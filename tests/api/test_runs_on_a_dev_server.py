"""The parts of the run API that need a real Temporal server: listing through visibility (search attributes)
and answering a waiting run, whose refusals the time-skipping test server cannot report."""

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.sse import parse_sse
from tests.workflows.common.tiny import TINY_WORKFLOWS
from workflows.registry import REGISTRY


@pytest.fixture
async def platform(
    dev_env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[Gateway]:
    registry = REGISTRY.extended(*TINY_WORKFLOWS)
    async with running_gateway(dev_env, tmp_path, api_style_store, registry=registry) as gateway:
        yield gateway


async def start(gateway: Gateway, workflow: str, run_input: dict[str, Any], session_id: str | None = None) -> str:
    body: dict[str, Any] = {"workflow": workflow, "input": run_input}
    if session_id:
        body["sessionId"] = session_id
        gateway.sessions.add(f"session-local-{session_id}")
    response = await gateway.http.post("/v1/runs", json=body)
    assert response.status_code == 201, response.text
    run_id: str = response.json()["runId"]
    gateway.sessions.add(run_id)
    return run_id


async def eventually(gateway: Gateway, path: str, check: Any) -> dict[str, Any]:
    """GET `path` until it answers 200 and `check(body)` holds (a run the session has just been asked for starts,
    and visibility and queries catch up, within moments)."""
    for _ in range(100):
        response = await gateway.http.get(path)
        body: dict[str, Any] = response.json()
        if response.status_code == 200 and check(body):
            return body
        await asyncio.sleep(0.1)
    raise AssertionError(f"{path} never satisfied the check; last: {body}")


async def test_runs_are_listed_by_session_newest_first_a_page_at_a_time(platform: Gateway) -> None:
    session = f"list{platform.settings.task_queue_prefix.strip('-')}"
    first = await start(platform, "ImageAgentWorkflow", {"text": "画一只猫"}, session)
    await eventually(platform, f"/v1/runs/{first}", lambda b: b["status"] == "completed")
    second = await start(platform, "ImageAgentWorkflow", {"text": "😀"}, session)
    await eventually(platform, f"/v1/runs/{second}", lambda b: b["status"] == "failed")  # as the list says

    listed = await eventually(
        platform,
        f"/v1/runs?sessionId={session}&workflow=ImageAgentWorkflow",
        lambda b: [r["status"] for r in b["runs"]] == ["failed", "completed"],
    )
    assert [r["runId"] for r in listed["runs"]] == [second, first]
    assert {r["sessionId"] for r in listed["runs"]} == {session}
    page = (await platform.http.get(f"/v1/runs?sessionId={session}&pageSize=1")).json()
    assert len(page["runs"]) == 1 and page["nextPageToken"]
    rest = (
        await platform.http.get(f"/v1/runs?sessionId={session}&pageSize=5&pageToken={page['nextPageToken']}")
    ).json()
    assert page["runs"][0]["runId"] not in {r["runId"] for r in rest["runs"]}
    both = {r["workflow"] for r in [*page["runs"], *rest["runs"]]}
    assert both == {"ImageAgentWorkflow", "ImageSessionWorkflow"}
    failed = (await platform.http.get(f"/v1/runs?sessionId={session}&status=failed")).json()
    assert [r["runId"] for r in failed["runs"]] == [second]


async def test_a_waiting_run_is_answered_through_post_input(platform: Gateway) -> None:
    run_id = await start(
        platform, "AskWorkflow", {"prompt": "Which colour?", "options": ["red", "blue"], "lingerSeconds": 3600}
    )

    view = await eventually(platform, f"/v1/runs/{run_id}", lambda b: b["awaitingInput"] is not None)
    question = view["awaitingInput"]
    assert question["prompt"] == "Which colour?" and [o["id"] for o in question["options"]] == ["red", "blue"]
    assert view["state"]["awaitingInput"] == question and view["status"] == "waiting"
    waiting = await eventually(platform, "/v1/runs?status=waiting&workflow=AskWorkflow", lambda b: b["runs"])
    assert run_id in {r["runId"] for r in waiting["runs"]}

    wrong = await platform.http.post(f"/v1/runs/{run_id}/input", json={"answer": "green"})
    assert wrong.status_code == 422 and wrong.json()["error"]["code"] == "INPUT_NOT_AN_OPTION"
    stale = await platform.http.post(f"/v1/runs/{run_id}/input", json={"answer": "red", "questionId": "old"})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "INPUT_QUESTION_CHANGED"
    right = await platform.http.post(
        f"/v1/runs/{run_id}/input", json={"answer": "red", "questionId": question["questionId"]}
    )
    assert right.status_code == 200 and right.json()["option"] == {"id": "red", "label": "Red"}
    again = await platform.http.post(f"/v1/runs/{run_id}/input", json={"answer": "blue"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "RUN_NOT_WAITING"

    assert (await platform.http.post(f"/v1/runs/{run_id}/cancel")).status_code == 202  # it lingers otherwise
    events = parse_sse((await platform.http.get(f"/v1/runs/{run_id}/events")).text)
    assert [e.event for e in events] == ["user_input_required", "user_input_received", "note", "done"]
    assert events[-1].data["data"]["status"] == "cancelled"
    await eventually(platform, f"/v1/runs/{run_id}", lambda b: b["status"] == "cancelled")
    listed = await eventually(platform, "/v1/runs?status=cancelled&workflow=AskWorkflow", lambda b: b["runs"])
    assert run_id in {r["runId"] for r in listed["runs"]}, "both views say cancelled"


async def test_input_to_a_run_that_never_asks_or_has_ended_is_a_conflict(platform: Gateway) -> None:
    run_id = await start(platform, "ImageAgentWorkflow", {"text": "画一只猫"}, "noinput")
    await eventually(platform, f"/v1/runs/{run_id}", lambda b: b["status"] == "completed")
    asked = await start(platform, "AskWorkflow", {"timeoutSeconds": 1})
    await eventually(platform, f"/v1/runs/{asked}", lambda b: b["status"] == "completed")

    never = await platform.http.post(f"/v1/runs/{run_id}/input", json={"answer": "x"})
    ended = await platform.http.post(f"/v1/runs/{asked}/input", json={"answer": "red"})
    unknown = await platform.http.post("/v1/runs/no-such-run/input", json={"answer": "red"})

    assert (never.status_code, never.json()["error"]["code"]) == (409, "RUN_ALREADY_CLOSED")
    assert (ended.status_code, ended.json()["error"]["code"]) == (409, "RUN_ALREADY_CLOSED")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "RUN_NOT_FOUND")
    expired = parse_sse((await platform.http.get(f"/v1/runs/{asked}/events")).text)
    assert [e.event for e in expired] == ["user_input_required", "user_input_expired", "done"]


async def test_a_page_token_the_api_did_not_issue_is_a_422_not_a_500(platform: Gateway) -> None:
    """Found by the Schemathesis run: Temporal refused the token and the gateway answered 500."""
    response = await platform.http.get("/v1/runs", params={"pageToken": "W0ZpbHRlcmVkXQ=="})

    assert response.status_code == 422 and response.json()["error"]["code"] == "INVALID_REQUEST"
