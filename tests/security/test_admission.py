"""Admission control: with two places and two waiting in line (small limits stand in for 50 and 100), the third
run waits with `queued` events and starts when a place frees, and the fifth is refused with 429 and Retry-After;
a plain request that hung up while in line starts no run; a principal over its request rate gets 429 too."""

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from api.admission import RateLimiter
from api.errors import ApiError
from stores.style_store import LanceStyleStore
from tests.security.limited_gateway import SLOW, SSE, closed, events_until, limited_gateway
from tests.sse import SseEvent

ASK = {"workflow": "AskWorkflow", "input": {"timeoutSeconds": 3600}}
LIMITS = {"MAX_RUNS_IN_FLIGHT": "2", "MAX_RUNS_WAITING": "2"}


async def test_the_third_run_waits_for_a_place_and_the_fifth_is_refused(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    async with limited_gateway(env, tmp_path, api_style_store, **LIMITS) as http:
        running = [(await http.post("/v1/runs", json=SLOW)).json()["runId"] for _ in range(2)]
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

        await http.post(f"/v1/runs/{running[0]}/cancel")  # a place frees: the third is admitted
        await asyncio.wait_for(third, timeout=30)
        admitted = waiting[0][1]
        assert admitted.event == "admitted" and admitted.data["runId"].startswith("test-")
        assert [e.event for e in waiting[0][2:]] == ["user_input_required"] and waiting[0][2].id == 0

        # The third run now waits for a person's answer: it gives its place back, and the fourth is admitted.
        await asyncio.wait_for(fourth, timeout=30)
        assert ("queued", 1) in [(e.event, e.data.get("position")) for e in waiting[1]]  # moved up the line
        assert [e.event for e in waiting[1][-2:]] == ["admitted", "user_input_required"]
        # Leave no run open: a run waiting on a timer with no worker would stop the test server's time skipping.
        asked = [admitted.data["runId"], waiting[1][-2].data["runId"]]
        for run_id in [running[1], *asked]:
            assert (await http.post(f"/v1/runs/{run_id}/cancel")).status_code == 202
        for run_id in [*running, *asked]:
            await closed(http, run_id)


async def asking(http: httpx.AsyncClient) -> str:
    """Start a run that asks its question (once the one place is free: the run before gave it back when it asked),
    and read its events until it does."""
    for _ in range(300):
        async with http.stream("POST", "/v1/runs", json=ASK, headers=SSE) as response:
            if response.status_code == 429:
                assert (await response.aread()) and "RUNS_BUSY" in response.text
                await asyncio.sleep(0.1)
                continue
            await events_until(response, "user_input_required", [], asyncio.Event())
            return response.headers["x-run-id"]
    raise AssertionError("no place for the run")


async def until_refused_with(http: httpx.AsyncClient, code: str) -> None:
    """Ask for a new run until the gateway refuses it with `code` (every answer meanwhile a refusal too)."""
    for _ in range(300):
        response = await http.post("/v1/runs", json=ASK)
        assert response.status_code == 429, response.text
        if response.json()["error"]["code"] == code:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"never refused with {code}")


async def test_a_principal_with_its_waiting_runs_at_the_limit_is_refused_a_new_run(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    limits = {"MAX_RUNS_IN_FLIGHT": "1", "MAX_RUNS_WAITING": "0", "WAITING_RUNS_PER_PRINCIPAL": "2"}
    async with limited_gateway(env, tmp_path, api_style_store, **limits) as http:
        asked = [await asking(http), await asking(http)]

        await until_refused_with(http, "TOO_MANY_WAITING_RUNS")  # both wait for their answers: no third
        refused = await http.post("/v1/runs", json=ASK)
        assert "2" in refused.json()["error"]["message"] and int(refused.headers["retry-after"]) > 0

        assert (await http.post(f"/v1/runs/{asked[0]}/cancel")).status_code == 202
        await closed(http, asked[0])
        for _ in range(300):  # once the gateway has seen it end, a new run may wait in its place
            started = await http.post("/v1/runs", json=ASK)
            if started.status_code == 201:
                break
            await asyncio.sleep(0.1)
        assert started.status_code == 201, started.text
        for run_id in [asked[1], started.json()["runId"]]:
            assert (await http.post(f"/v1/runs/{run_id}/cancel")).status_code == 202
            await closed(http, run_id)


async def test_a_plain_request_that_hung_up_while_in_line_starts_no_run(
    dev_env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    """On the dev server, which lists runs; its own principal, so only this test's runs are listed."""
    key = {"authorization": "Bearer hangup-key"}
    limits = LIMITS | {"API_KEYS": "hangup=hangup-key", "MAX_RUNS_PER_PRINCIPAL": "2"}
    async with limited_gateway(dev_env, tmp_path, api_style_store, **limits) as http:
        running = [(await http.post("/v1/runs", json=SLOW, headers=key)).json()["runId"] for _ in range(2)]
        with pytest.raises(httpx.ReadTimeout):  # `curl -m 2`: the client gives up while the request is in line
            await http.post("/v1/runs", json=SLOW, headers=key, timeout=2)

        await http.post(f"/v1/runs/{running[0]}/cancel", headers=key)  # a place frees
        await closed(http, running[0], key)
        await asyncio.sleep(2)  # time for a run to start if the request that hung up still took the place
        listed = await http.get("/v1/runs", params={"workflow": "GraphProbeWorkflow"}, headers=key)
        assert sorted(run["runId"] for run in listed.json()["runs"]) == sorted(running)
        then = await http.post("/v1/runs", json=SLOW, headers=key, timeout=10)  # and the place is free
        assert then.status_code == 201, then.text
        for run_id in [running[1], then.json()["runId"]]:
            await http.post(f"/v1/runs/{run_id}/cancel", headers=key)
            await closed(http, run_id, key)


def test_a_principal_over_its_rate_is_refused_with_retry_after() -> None:
    limiter = RateLimiter(per_minute=3)
    for _ in range(3):
        limiter.check("alice")

    with pytest.raises(ApiError) as refused:
        limiter.check("alice")

    assert refused.value.status == 429 and refused.value.code == "RATE_LIMITED"
    assert int(refused.value.headers["Retry-After"]) >= 1
    limiter.check("bob")  # another principal has its own bucket
