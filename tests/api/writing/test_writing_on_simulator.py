"""The writing family end to end over HTTP with the model simulator as its model (tests/simulator), at the
realistic latency profile scaled down, with the quirks a real model shows: each run ends with the model's text,
or with an explicit degrade event and the offline answer, never an empty `completed`, and no stored or streamed
text carries `<think>`."""

import time
from typing import Any

import pytest

from tests.api.conftest import Gateway
from tests.api.writing.test_chat import sample_project
from tests.simulator.quirks import TRANSPORT_QUIRKS, Quirk, QuirkRule
from tests.simulator.server import Simulator
from tests.sse import parse_sse

TIME_SCALE = 0.1
"""The realistic profile 10× faster: a 400-token scene takes about 1.2 s instead of 12 s."""
REQUESTS = ["改写第一章，让节奏更紧凑", "总结第一章", "帮我设定这个城市的世界观"]
"""A scene (writer, then the draft check), a summary (simple agent) and a setting saved as a world note."""


async def chat(gateway: Gateway, project: str, text: str) -> tuple[list[Any], dict[str, Any]]:
    response = await gateway.http.post(f"/v1/writing/projects/{project}/chat", json={"text": text})
    assert response.status_code == 200, response.text
    view = (await gateway.http.get(f"/v1/runs/{response.headers['x-run-id']}")).json()
    return parse_sse(response.text), view


@pytest.mark.parametrize("text", REQUESTS)
async def test_a_writing_request_ends_with_the_simulated_model_s_text(
    simulated: Gateway, simulator: Simulator, text: str
) -> None:
    project = await sample_project(simulated)
    started = time.monotonic()

    events, view = await chat(simulated, project, text)

    result = view["state"]["result"]
    assert view["status"] == "completed" and not result["offline"] and result["text"]
    assert result["text"] in {call.text for call in simulator.log}, "the model's answer is the result"
    assert "error" not in [e.event for e in events]
    assert time.monotonic() - started >= max(call.generation_seconds for call in simulator.log)


@pytest.mark.parametrize(
    "quirk",
    [Quirk.FENCE, Quirk.PROSE, Quirk.RATE_LIMIT, Quirk.SERVER_ERROR, Quirk.CUT_STREAM, Quirk.THINK],
)
async def test_with_a_quirk_a_scene_ends_with_the_model_s_text_or_says_it_degraded(
    simulated: Gateway, simulator: Simulator, quirk: Quirk
) -> None:
    """A transport quirk on the first call (Temporal retries it); a content quirk on every call where it can show
    (a JSON quirk on the draft check's review, not on the writer's prose)."""
    simulator.quirks = [QuirkRule(quirk, first=1) if quirk in TRANSPORT_QUIRKS else QuirkRule(quirk, every=1)]
    project = await sample_project(simulated)

    events, view = await chat(simulated, project, REQUESTS[0])

    result = view["state"]["result"]
    assert any(call.quirk == quirk for call in simulator.log)
    assert view["status"] == "completed" and result["text"]
    degraded = [e for e in events if e.event == "error"]
    assert not result["offline"] or degraded, "an offline answer is announced"
    assert "<think>" not in result["text"]
