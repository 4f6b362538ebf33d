"""End to end over real HTTP: a run that asks a person, answered through `POST /v1/runs/{id}/input` while its
event stream stays open, on a real Temporal server with the gateway as its own process."""

import asyncio
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from tests.gateway_process import gateway_process
from tests.sse import SseEvent, sse_stream
from tests.workflows.common.tiny import TINY_ACTIVITIES, TINY_WORKFLOWS
from tests.workflows.harness import settings_for
from worker import running_workers
from workflows.common.registration import Registry

pytestmark = pytest.mark.e2e


async def test_a_person_answers_a_waiting_run_over_http_while_its_stream_stays_open(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    host, port = dev_env.client.service_client.config.target_host.rsplit(":", 1)
    settings = settings_for(tmp_path, temporal_host=host, temporal_port=int(port))
    body = {"workflow": "AskWorkflow", "input": {"prompt": "Which colour?", "options": ["red", "blue"]}}

    async with running_workers(dev_env.client, settings, TINY_ACTIVITIES, Registry(TINY_WORKFLOWS)):
        with gateway_process(settings, tmp_path / "gateway.log") as gateway:
            async with (
                httpx.AsyncClient(base_url=gateway.url, timeout=30) as http,
                http.stream("POST", "/v1/runs", json=body, headers={"accept": "text/event-stream"}) as stream,
            ):
                run_id = stream.headers["x-run-id"]
                seen: list[SseEvent] = []
                async for event in sse_stream(stream):
                    seen.append(event)
                    if event.event == "user_input_required":
                        view = (await http.get(f"/v1/runs/{run_id}")).json()
                        assert view["status"] == "waiting" and view["awaitingInput"]["prompt"] == "Which colour?"
                        wrong = await http.post(f"/v1/runs/{run_id}/input", json={"answer": "green"})
                        assert wrong.status_code == 422
                        question = event.data["data"]["questionId"]
                        answer = {"answer": "blue", "questionId": question}
                        right = await http.post(f"/v1/runs/{run_id}/input", json=answer)
                        assert right.status_code == 200, right.text
                final = await asyncio.wait_for(http.get(f"/v1/runs/{run_id}"), timeout=10)

    assert [e.event for e in seen] == ["user_input_required", "user_input_received", "note", "done"]
    assert seen[1].data["data"]["answer"] == "blue" and seen[-1].data["data"]["status"] == "completed"
    assert final.json()["state"]["answer"] == "blue"
