"""Each principal's share of the run places, with two principals on a gateway of two places and two in line (small
limits stand in for 50 and 100; each principal's share is then one place and one in line): runs waiting for
alice's answers hold no place, so bob's image turn starts at once; alice over her share waits while bob goes past
her, and past her part of the line is refused with 429 `TOO_MANY_RUNS`; an answer takes a place again before it
reaches the run."""

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.security.limited_gateway import SLOW, SSE, closed, events_until, limited_gateway
from tests.sse import SseEvent
from tests.workflows.harness import terminate_running

ALICE = {"authorization": "Bearer alice-key"}
BOB = {"authorization": "Bearer bob-key"}
LIMITS = {"API_KEYS": "alice=alice-key,bob=bob-key", "MAX_RUNS_IN_FLIGHT": "2", "MAX_RUNS_WAITING": "2"}
CONTENT = {"topic": "打工人的咖啡续命指南"}
"""No platform: the run asks which one, and waits for alice's answer."""


@pytest.fixture
async def shared(
    dev_env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[httpx.AsyncClient]:
    """On the dev server, which long-polls histories as a Temporal cluster does (the gateway learns there that a
    run waits for a person)."""
    async with limited_gateway(dev_env, tmp_path, api_style_store, **LIMITS) as http:
        yield http


async def asking_content_run(http: httpx.AsyncClient) -> str:
    """Alice's content run, once it waits for her answer."""
    seen: list[SseEvent] = []
    async with http.stream("POST", "/v1/content/runs", json=CONTENT, headers=ALICE | SSE) as response:
        assert response.status_code == 200, await response.aread()
        await asyncio.wait_for(events_until(response, "user_input_required", seen, asyncio.Event()), timeout=60)
    admitted = [event.data["runId"] for event in seen if event.event == "admitted"]
    run_id: str = response.headers.get("x-run-id") or admitted[0]
    return run_id


async def cancel(http: httpx.AsyncClient, headers: dict[str, str], *run_ids: str) -> None:
    for run_id in run_ids:
        await http.post(f"/v1/runs/{run_id}/cancel", headers=headers)
        await closed(http, run_id, headers)


async def test_runs_waiting_for_alices_answers_hold_no_place_and_bobs_turn_starts_at_once(
    shared: httpx.AsyncClient, dev_env: WorkflowEnvironment
) -> None:
    asking = [await asking_content_run(shared) for _ in range(3)]  # more than there are places
    await asyncio.sleep(0.5)  # the gateway reads the question from the run's history a moment after the stream

    seen: list[SseEvent] = []
    body = {"text": "画一只猫", "sessionId": "bob-cat"}
    async with shared.stream("POST", "/api/agent/chat", json=body, headers=BOB | SSE) as response:
        started_at_once = "x-run-id" in response.headers
        await asyncio.wait_for(events_until(response, "stream_end", seen, asyncio.Event()), timeout=60)

    assert started_at_once and "queued" not in [event.event for event in seen]
    await cancel(shared, ALICE, *asking)
    await terminate_running(dev_env.client, {"session-bob-bob-cat"})


async def test_alice_over_her_share_waits_while_bob_goes_past_and_past_her_part_of_the_line_is_refused(
    shared: httpx.AsyncClient,
) -> None:
    first = (await shared.post("/v1/runs", json=SLOW, headers=ALICE)).json()["runId"]
    seen: list[SseEvent] = []
    arrived = asyncio.Event()

    async def alice_again() -> None:
        async with shared.stream("POST", "/v1/runs", json=SLOW, headers=ALICE | SSE) as response:
            assert "x-run-id" not in response.headers
            await events_until(response, "admitted", seen, arrived)

    second = asyncio.create_task(alice_again())
    await asyncio.wait_for(arrived.wait(), timeout=30)
    third = await shared.post("/v1/runs", json=SLOW, headers=ALICE)
    bobs = await shared.post("/v1/runs", json=SLOW, headers=BOB, timeout=10)

    assert [(event.event, event.data["position"]) for event in seen] == [("queued", 1)]
    assert third.status_code == 429 and third.json()["error"]["code"] == "TOO_MANY_RUNS"
    assert int(third.headers["retry-after"]) > 0
    assert bobs.status_code == 201, bobs.text  # past alice's waiting request, to the place she may not take
    await cancel(shared, ALICE, first)  # alice's place frees: her waiting request takes it
    await asyncio.wait_for(second, timeout=30)
    await cancel(shared, ALICE, seen[-1].data["runId"])
    await cancel(shared, BOB, bobs.json()["runId"])


async def test_an_answer_takes_a_place_again_before_it_reaches_the_run(shared: httpx.AsyncClient) -> None:
    asking = await asking_content_run(shared)
    await asyncio.sleep(0.5)  # its place is given back
    working = (await shared.post("/v1/runs", json=SLOW, headers=ALICE)).json()["runId"]  # alice's one place

    answer = asyncio.create_task(shared.post(f"/v1/runs/{asking}/input", json={"answer": "weibo"}, headers=ALICE))
    await asyncio.sleep(1)
    waited = not answer.done()
    await cancel(shared, ALICE, working)
    answered = await asyncio.wait_for(answer, timeout=30)

    assert waited and answered.status_code == 200, answered.text
    await cancel(shared, ALICE, asking)
