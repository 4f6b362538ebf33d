"""The app builder end to end over HTTP with the model simulator as its model (tests/simulator), at the realistic
latency profile scaled down and with quirks: the analysis documents are the model's, and the run ends with the
model's project or says why not (an `error` event with its code); never a success without files. Without quirks
the run builds the model's project: its plan names only the registries' agents and tools (the schema the planner
sends lists them) and its tasks wait only for tasks of the plan."""

import time
from typing import Any

import pytest

from tests.api.conftest import Gateway
from tests.simulator.quirks import Quirk, QuirkRule
from tests.simulator.server import Simulator
from tests.sse import parse_sse

TIME_SCALE = 0.02
"""The realistic profile 50× faster: a 2 000-token document takes about 1 s instead of 50 s."""
TODO = "做一个待办事项应用：可以添加、完成和删除待办"


async def build(gateway: Gateway) -> tuple[list[Any], dict[str, Any]]:
    response = await gateway.http.post("/v1/apps/runs", json={"message": TODO, "techStack": ["React", "TypeScript"]})
    assert response.status_code == 200, response.text
    view = (await gateway.http.get(f"/v1/runs/{response.headers['x-run-id']}")).json()
    return parse_sse(response.text), view


def ended_honestly(events: list[Any], view: dict[str, Any]) -> None:
    """The model's project, or an `error` event with a code; never a success without files."""
    types = [e.event for e in events]
    assert types[-1] == "done" and view["status"] in {"completed", "failed"}
    assert view["status"] == events[-1].data["data"]["status"], "the run's view says how it ended, as its done does"
    if view["status"] == "completed" and view["state"]["success"]:
        assert types[-2] == "app_ready" and view["state"]["workspace"]["files"]
    else:
        assert [e.data["data"]["code"] for e in events if e.event == "error"], types


async def test_an_app_run_s_documents_are_the_simulated_model_s_and_the_run_ends_honestly(
    simulated: Gateway, simulator: Simulator
) -> None:
    started = time.monotonic()

    events, view = await build(simulated)

    documents = [e.data["data"] for e in events if e.event == "document_ready"]
    assert len(documents) == 4 and not any(d["offline"] for d in documents)
    answered = [call for call in simulator.log if call.request.schema is not None]
    assert len(answered) >= 5, "four documents and at least one plan"
    ended_honestly(events, view)
    assert view["status"] == "completed" and view["state"]["success"], view["state"]
    product, architect, *experts = answered[:4]  # the UI and UX experts write at once
    model = product.generation_seconds + architect.generation_seconds + max(c.generation_seconds for c in experts)
    assert time.monotonic() - started >= model


@pytest.mark.parametrize("quirk", [Quirk.FENCE, Quirk.PROSE, Quirk.MISSING_FIELD, Quirk.RATE_LIMIT, Quirk.TRUNCATE])
async def test_with_a_quirk_an_app_run_ends_with_the_model_s_work_or_says_why_not(
    simulated: Gateway, simulator: Simulator, quirk: Quirk
) -> None:
    simulator.quirks = [QuirkRule(quirk, every=3)]

    events, view = await build(simulated)

    assert any(call.quirk == quirk for call in simulator.log)
    ended_honestly(events, view)
