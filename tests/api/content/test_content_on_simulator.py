"""The content family end to end over HTTP with the model simulator as its model (tests/simulator): a realistic
latency profile at a time scale, and the quirks a real model shows. Every run ends with the model's work, or
says where it degraded; none ends `completed` with an empty or incomplete post and no word about it."""

import logging
import time
from dataclasses import replace
from typing import Any

import pytest

from tests.api.conftest import Gateway
from tests.api.content.prompted_supervisor import prompted_decision
from tests.simulator.quirks import Quirk, QuirkRule
from tests.simulator.server import Simulator
from tests.sse import SseEvent, parse_sse
from tests.workflows.harness import time_skipping

LOG = logging.getLogger(__name__)
TIME_SCALE = 0.05
"""The realistic profile 20× faster: a 600-token post takes about 0.8 s instead of 16 s."""
RARE_QUIRKS = {Quirk.WRONG_SCALE}
"""Quirks only a few answers can show (wrong_scale: the layout's `imageCount` is a content run's only top-level
bounded number), scheduled on every request, with a Supervisor that follows its prompt's stages: the layout agent is
one, and the simulator's made-up decisions may never name it (on every third request, or with made-up decisions,
whether the run meets the quirk depends on where those answers fall in the run's order)."""
TOPIC = "打工人的咖啡续命指南"
MAX_ITERATIONS = 14
NOTES = ["2025 年职场调查：67% 的上班族每天喝至少一杯咖啡。", "营养师建议：每天咖啡因不超过 400 毫克。"]


async def content_run(gateway: Gateway) -> tuple[list[SseEvent], dict[str, Any]]:
    """One content run over HTTP: its events, and the run as `GET /v1/runs/{id}` shows it. Its retry gaps pass on
    the time-skipping server's clock, not in real time."""
    async with time_skipping(gateway.env.client):
        response = await gateway.http.post(
            "/v1/content/runs",
            json={"topic": TOPIC, "platform": "xiaohongshu", "evidence": NOTES, "maxIterations": MAX_ITERATIONS},
            timeout=300,
        )
    assert response.status_code == 200, response.text
    view = (await gateway.http.get(f"/v1/runs/{response.headers['x-run-id']}")).json()
    return parse_sse(response.text), view


def assert_ends_with_the_model_s_work_or_says_why(events: list[SseEvent], view: dict[str, Any]) -> None:
    """Rule 15: a post the model made, or an explicit degrade or incompleteness event; never a silent success."""
    types = [event.event for event in events]
    assert types[-1] == "done"
    [post] = [event.data["data"] for event in events if event.event == "post_ready"]
    errors = [event.data["data"] for event in events if event.event == "error"]
    status = events[-1].data["data"]["status"]
    assert status == view["status"]
    if not post["complete"]:
        codes = {error["code"] for error in errors}
        assert codes & {"POST_EMPTY", "POST_INCOMPLETE"}, "an incomplete post is said to be incomplete"
        assert status == "failed" or post["sections"], "a post with no text is no success"
    finished = [event.data["data"] for event in events if event.event == "agent_finished"]
    degraded = {error["node"] for error in errors if error["code"] == "AGENT_DEGRADED"}
    for agent in finished:
        if agent["offline"] and agent["agent"] != "reference_intelligence_agent":
            assert agent["agent"] in degraded, f"{agent['agent']} answered offline without saying why"


@pytest.mark.parametrize("simulated", ["openai_chat", "anthropic"], indirect=True)
async def test_a_content_run_on_a_realistic_model_ends_with_the_model_s_post(
    simulated: Gateway, simulator: Simulator
) -> None:
    started = time.monotonic()
    events, view = await content_run(simulated)

    assert_ends_with_the_model_s_work_or_says_why(events, view)
    decisions = [event.data["data"] for event in events if event.event == "supervisor_decision"]
    assert decisions and all(d["rule"] != "no_decision" for d in decisions), "every decision was readable"
    assert any(not agent["offline"] for agent in (e.data["data"] for e in events if e.event == "agent_finished"))
    report(simulator, "none", started, events)


@pytest.mark.parametrize(
    ("simulated", "quirk"),
    [
        *[
            ("openai_chat", quirk)
            for quirk in (
                Quirk.FENCE,
                Quirk.PROSE_BRACES,
                Quirk.REASONING,
                Quirk.TRAILING_COMMA,
                Quirk.MISSING_FIELD,
                Quirk.WRONG_SCALE,
                Quirk.RATE_LIMIT,
                Quirk.SERVER_ERROR,
            )
        ],
        ("anthropic", Quirk.THINK),
        ("anthropic", Quirk.TRUNCATE),
    ],
    indirect=["simulated"],
)
async def test_a_content_run_with_a_quirky_model_ends_with_its_work_or_says_why(
    simulated: Gateway, simulator: Simulator, quirk: Quirk
) -> None:
    simulator.quirks = [QuirkRule(quirk, every=1 if quirk in RARE_QUIRKS else 3)]
    if quirk in RARE_QUIRKS:
        simulator.style = replace(simulator.style, json_author=prompted_decision)
    started = time.monotonic()

    events, view = await content_run(simulated)

    assert_ends_with_the_model_s_work_or_says_why(events, view)
    assert any(call.quirk == quirk for call in simulator.log)
    report(simulator, quirk.value, started, events)


def report(simulator: Simulator, quirk: str, started: float, events: list[SseEvent]) -> None:
    """One line for the run's record (`--log-cli-level=INFO` shows it)."""
    [post] = [event.data["data"] for event in events if event.event == "post_ready"]
    degraded = [
        e.data["data"]["node"] for e in events if e.event == "error" and e.data["data"]["code"] == "AGENT_DEGRADED"
    ]
    LOG.info(
        f"SIMRUN content quirk={quirk} calls={len(simulator.log)} wall={time.monotonic() - started:.1f}s "
        f"status={events[-1].data['data']['status']} complete={post['complete']} end={post['endReason']} "
        f"degraded={degraded}"
    )
