"""Clean failure: every error has the documented shape with a request id, an unreachable Temporal is a 503 with
`Retry-After` (while `/healthz` stays alive and `/readyz` says why it is not ready), and a stream resumed after a
finished run's last event gets the terminal event at once."""

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from api.server import create_app
from runtime.temporal_client import connect
from tests.api.conftest import Gateway
from tests.sse import parse_sse
from tests.stack_process import free_port
from tests.workflows.harness import settings_for


def assert_error_shape(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    assert error["requestId"] == response.headers["x-request-id"]


@pytest.fixture
async def without_temporal(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A gateway whose Temporal server is not there (nothing listens on its port)."""
    settings = settings_for(tmp_path, temporal_port=free_port())
    app = create_app(settings, client=await connect(settings, gateway=True))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as http,
    ):
        yield http


async def test_every_refusal_has_a_code_a_message_and_the_request_id(gateway: Gateway) -> None:
    assert_error_shape(await gateway.http.get("/v1/nothing-here"), 404, "NOT_FOUND")
    assert_error_shape(await gateway.http.delete("/v1/runs"), 405, "METHOD_NOT_ALLOWED")
    assert_error_shape(await gateway.http.get("/v1/runs/image-nobody-1"), 404, "RUN_NOT_FOUND")
    assert_error_shape(await gateway.http.post("/api/agent/chat", json={"text": 3}), 422, "INVALID_REQUEST")


async def test_a_request_id_the_caller_sent_is_the_one_reported(gateway: Gateway) -> None:
    response = await gateway.http.get("/v1/runs/image-nobody-1", headers={"x-request-id": "trace-0123456789"})

    assert response.headers["x-request-id"] == "trace-0123456789"
    assert response.json()["error"]["requestId"] == "trace-0123456789"


async def test_temporal_unreachable_is_a_503_with_retry_after(without_temporal: httpx.AsyncClient) -> None:
    response = await without_temporal.get("/v1/runs/image-someone-1")

    assert_error_shape(response, 503, "TEMPORAL_UNAVAILABLE")
    assert int(response.headers["retry-after"]) > 0
    chat = await without_temporal.post("/api/agent/chat", json={"text": "画一只猫", "sessionId": "down"})
    assert_error_shape(chat, 503, "TEMPORAL_UNAVAILABLE")


async def test_healthz_is_alive_while_readyz_names_what_is_not_ready(without_temporal: httpx.AsyncClient) -> None:
    assert (await without_temporal.get("/healthz")).status_code == 200

    response = await without_temporal.get("/readyz")

    assert_error_shape(response, 503, "NOT_READY")
    assert "temporal" in response.json()["error"]["message"]


async def test_readyz_is_ready_when_temporal_and_the_blob_store_answer(gateway: Gateway) -> None:
    response = await gateway.http.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {"status": "ready", "checks": {"temporal": True, "blobStore": True}}


async def test_resuming_after_a_finished_runs_last_event_returns_the_terminal_event_at_once(
    gateway: Gateway, env: WorkflowEnvironment
) -> None:
    started = await gateway.http.post(
        "/v1/runs", json={"workflow": "ImageAgentWorkflow", "input": {"text": "画一只猫"}, "sessionId": "resume-end"}
    )
    gateway.sessions.add("session-local-resume-end")
    run_id = started.json()["runId"]
    events = parse_sse((await gateway.http.get(f"/v1/runs/{run_id}/events")).text)
    last = events[-1]
    assert last.event == "stream_end"

    again = parse_sse(
        (await gateway.http.get(f"/v1/runs/{run_id}/events", headers={"last-event-id": str(last.id)})).text
    )

    assert [(e.id, e.event) for e in again] == [(last.id, "stream_end")]
