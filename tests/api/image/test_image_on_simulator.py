"""The image family end to end over HTTP with the model simulator as its model (tests/simulator): a realistic
latency profile at a time scale and the quirks a real model shows. Every turn ends with an image and the
model's intent and review, or a warning (AGENT_DEGRADED) where the keywords or the rule checks answered, or an
`error` that says why there is no image (the simulated model's intent may be an edit with no mask)."""

import itertools
import logging
import time
from typing import Any

import pytest

from tests.api.conftest import Gateway
from tests.api.image.test_chat import chat
from tests.simulator.quirks import Quirk, QuirkRule
from tests.simulator.server import Simulator
from tests.sse import SseEvent

LOG = logging.getLogger(__name__)
TIME_SCALE = 0.1
"""The realistic profile 10× faster."""


async def two_turns(gateway: Gateway) -> list[tuple[list[SseEvent], dict[str, Any]]]:
    """A session's two turns over HTTP (a new image, then a reference back to it): each turn's events and state."""
    turns = []
    for text in ("生成一只赛博朋克风格的猫", "再调整一下，亮一点"):
        run_id, _, events = await chat(gateway, {"text": text, "sessionId": "sim"})
        turns.append((events, (await gateway.http.get(f"/v1/runs/{run_id}")).json()))
    return turns


def assert_ends_with_the_model_s_work_or_says_why(events: list[SseEvent], view: dict[str, Any]) -> None:
    assert events[-1].event == "stream_end" and view["status"] in {"completed", "failed"}
    assert view["status"] == events[-1].data["data"]["status"], "the turn's view says how it ended, as its stream does"
    state = view["state"]
    errors = [e.data["data"]["code"] for e in events if e.event == "error"]
    assert state["executionResult"] is not None or errors, "the turn made its image, or says why not"
    warnings = {
        e.data["node"] for e in events if e.event == "thought_log" and e.data["data"].get("code") == "AGENT_DEGRADED"
    }
    if state["intent"]["source"] not in {"llm", "mask"}:
        assert "planner" in warnings, "the keywords answered without a word about the model"
    if (state["qualityCheck"] or {}).get("llmReviewFailed"):
        assert "critic" in warnings, "the rule checks answered without a word about the model"


@pytest.mark.parametrize("simulated", ["openai_chat", "anthropic"], indirect=True)
async def test_an_image_session_on_a_realistic_model_uses_the_model_s_intent_and_review(
    simulated: Gateway, simulator: Simulator
) -> None:
    started = time.monotonic()

    turns = await two_turns(simulated)

    for events, view in turns:
        assert_ends_with_the_model_s_work_or_says_why(events, view)
        assert view["state"]["intent"]["source"] in {"llm", "mask"}
        assert not (view["state"]["qualityCheck"] or {}).get("llmReviewFailed")
    planner = [call for call in simulator.log if call.request.schema and "action" in call.request.schema["properties"]]
    roles = [[role for role, _ in call.request.messages if role != "system"] for call in planner]
    assert all(r[0] == "user" and all(a != b for a, b in itertools.pairwise(r)) for r in roles), roles
    report(simulator, "none", started, turns)


@pytest.mark.parametrize(
    ("simulated", "quirk"),
    [
        *[
            ("openai_chat", quirk)
            for quirk in (
                Quirk.FENCE,
                Quirk.PROSE_BRACES,
                Quirk.THINK,
                Quirk.TRAILING_COMMA,
                Quirk.MISSING_FIELD,
                Quirk.WRONG_SCALE,
                Quirk.TRUNCATE,
                Quirk.RATE_LIMIT,
                Quirk.SERVER_ERROR,
            )
        ],
        ("anthropic", Quirk.REASONING),
        ("anthropic", Quirk.MISSING_FIELD),
    ],
    indirect=["simulated"],
)
async def test_an_image_session_with_a_quirky_model_ends_with_its_work_or_says_why(
    simulated: Gateway, simulator: Simulator, quirk: Quirk
) -> None:
    simulator.quirks = [QuirkRule(quirk)]
    started = time.monotonic()

    turns = await two_turns(simulated)

    for events, view in turns:
        assert_ends_with_the_model_s_work_or_says_why(events, view)
    report(simulator, quirk.value, started, turns)


def report(
    simulator: Simulator, quirk: str, started: float, turns: list[tuple[list[SseEvent], dict[str, Any]]]
) -> None:
    """One line for the run's record (`--log-cli-level=INFO` shows it)."""
    results = [
        f"{view['status']}/intent={view['state']['intent']['source']}/reviewFailed="
        f"{(view['state']['qualityCheck'] or {}).get('llmReviewFailed')}"
        for _, view in turns
    ]
    LOG.info(
        f"SIMRUN image quirk={quirk} calls={len(simulator.log)} wall={time.monotonic() - started:.1f}s turns={results}"
    )
