"""Admission control: with two places and two waiting in line (small limits stand in for 50 and 100), the third
run waits with `queued` events and starts when a place frees, and the fifth is refused with 429 and Retry-After;
a principal over its request rate gets 429 too."""

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from api.admission import RateLimiter
from api.errors import ApiError
from stores.style_store import LanceStyleStore
from tests.gateway_process import gateway_process
from tests.sse import SseEvent, parse_sse
from tests.workflows.common.tiny import TINY_WORKFLOWS
from tests.workflows.harness import settings_for
from worker import build_activities, running_workers
from workflows.registry import REGISTRY

ASK = {"workflow": "AskWorkflow", "input": {"timeoutSeconds": 3600}}
SSE = {"accept": "text/event-stream"}


@pytest.fixture
async def small_gateway(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[httpx.AsyncClient]:
    host, port = env.client.service_client.config.target_host.rsplit(":", 1)
    settings = settings_for(tmp_path, temporal_host=host, temporal_port=int(port))
    registry = REGISTRY.extended(*TINY_WORKFLOWS)
    activities = build_activities(settings, style_store=api_style_store)
    async with running_workers(env.client, settings, activities, registry):
        limits = {"MAX_RUNS_IN_FLIGHT": "2", "MAX_RUNS_WAITING": "2"}
        with gateway_process(settings, tmp_path / "gateway.log", **limits) as gateway:
            async with httpx.AsyncClient(base_url=gateway.url, timeout=60) as http:
                yield http


async def events_until(response: httpx.Response, stop: str, seen: list[SseEvent], arrived: asyncio.Event) -> None:
    buffer = ""
    async for chunk in response.aiter_text():
        buffer += chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            seen.extend(parse_sse(block + "\n\n"))
            arrived.set()
            if seen and seen[-1].event == stop:
                return


async def test_the_third_run_waits_for_a_place_and_the_fifth_is_refused(small_gateway: httpx.AsyncClient) -> None:
    http = small_gateway
    running = [(await http.post("/v1/runs", json=ASK)).json()["runId"] for _ in range(2)]
    waiting: list[list[SseEvent]] = [[], []]
    arrived = [asyncio.Event(), asyncio.Event()]

    async def wait_in_line(number: int) -> Any:
        async with http.stream("POST", "/v1/runs", json=ASK, headers=SSE) as response:
            assert response.status_code == 200 and "x-run-id" not in response.headers
            await events_until(response, "user_input_required", waiting[number], arrived[number])

    third = asyncio.create_task(wait_in_line(0))
    await asyncio.wait_for(arrived[0].wait(), timeout=30)
    fourth = asyncio.create_task(wait_in_line(1))
    await asyncio.wait_for(arrived[1].wait(), timeout=30)

    refused = await http.post("/v1/runs", json=ASK)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "RUNS_BUSY"
    assert int(refused.headers["retry-after"]) > 0
    assert [(e.event, e.id, e.data["position"]) for e in waiting[0]] == [("queued", None, 1)]
    assert [(e.event, e.data["position"]) for e in waiting[1]] == [("queued", 2)]

    answered = await http.post(f"/v1/runs/{running[0]}/input", json={"answer": "red"})  # its run closes
    assert answered.status_code == 200
    await asyncio.wait_for(third, timeout=30)

    admitted = waiting[0][1]
    assert admitted.event == "admitted" and admitted.data["runId"].startswith("test-")
    assert [e.event for e in waiting[0][2:]] == ["user_input_required"] and waiting[0][2].id == 0
    assert [(e.event, e.data.get("position")) for e in waiting[1]][-1] == ("queued", 1)  # moved up the line

    await http.post(f"/v1/runs/{running[1]}/cancel")  # a place frees: the fourth is admitted
    await asyncio.wait_for(fourth, timeout=30)
    assert waiting[1][-2].event == "admitted"
    # Leave no run open: a run waiting on a timer with no worker would stop the test server's time skipping.
    for run_id in [admitted.data["runId"], waiting[1][-2].data["runId"]]:
        assert (await http.post(f"/v1/runs/{run_id}/cancel")).status_code == 202
    for run_id in [*running, admitted.data["runId"], waiting[1][-2].data["runId"]]:
        await closed(http, run_id)


async def closed(http: httpx.AsyncClient, run_id: str) -> None:
    for _ in range(300):
        if (await http.get(f"/v1/runs/{run_id}")).json()["status"] != "running":
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{run_id} is still running")


def test_a_principal_over_its_rate_is_refused_with_retry_after() -> None:
    limiter = RateLimiter(per_minute=3)
    for _ in range(3):
        limiter.check("alice")

    with pytest.raises(ApiError) as refused:
        limiter.check("alice")

    assert refused.value.status == 429 and refused.value.code == "RATE_LIMITED"
    assert int(refused.value.headers["Retry-After"]) >= 1
    limiter.check("bob")  # another principal has its own bucket
