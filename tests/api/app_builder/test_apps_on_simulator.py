"""The app builder end to end over HTTP with the model simulator as its model (tests/simulator), at the realistic
latency profile scaled down and with quirks: the analysis documents, the plan and the files are the model's
(written through its tool calls), or the run says what degraded or failed; never an empty success."""

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.simulator.fixtures import simulator_settings
from tests.simulator.profiles import REALISTIC
from tests.simulator.quirks import Quirk, QuirkRule
from tests.simulator.server import Simulator
from tests.sse import parse_sse

TIME_SCALE = 0.02
"""The realistic profile 50× faster: a 2 000-token document takes about 1 s instead of 50 s."""
TODO = "做一个待办事项应用：可以添加、完成和删除待办"


@pytest.fixture
async def simulated(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, simulator: Simulator
) -> AsyncIterator[Gateway]:
    simulator.profile, simulator.time_scale = REALISTIC, TIME_SCALE
    async with running_gateway(env, tmp_path, api_style_store, **simulator_settings(simulator)) as gateway:
        yield gateway


async def build(gateway: Gateway) -> tuple[list[Any], dict[str, Any]]:
    response = await gateway.http.post("/v1/apps/runs", json={"message": TODO, "techStack": ["React", "TypeScript"]})
    assert response.status_code == 200, response.text
    print("BODY", response.text[:3000])
    view = (await gateway.http.get(f"/v1/runs/{response.headers['x-run-id']}")).json()
    return parse_sse(response.text), view


async def test_an_app_run_is_built_from_the_simulated_model_s_answers(simulated: Gateway, simulator: Simulator) -> None:
    started = time.monotonic()

    events, view = await build(simulated)

    state = view["state"]
    types = [e.event for e in events]
    assert types[-2:] == ["app_ready", "done"], [(e.event, e.data) for e in events if e.event == "error"] and view["status"] == "completed"
    documents = [call for call in simulator.log if call.request.schema is not None]
    assert len(documents) >= 5, "four analysis documents and a plan from the model"
    assert any(name == "write_file" for call in simulator.log for name, _ in call.tool_calls)
    assert state["workspace"]["files"], "the model's files are in the workspace"
    assert time.monotonic() - started >= sum(call.generation_seconds for call in documents[:4])


@pytest.mark.parametrize("quirk", [Quirk.FENCE, Quirk.PROSE, Quirk.MISSING_FIELD, Quirk.RATE_LIMIT, Quirk.TRUNCATE])
async def test_with_a_quirk_an_app_run_ends_with_the_model_s_work_or_says_why_not(
    simulated: Gateway, simulator: Simulator, quirk: Quirk
) -> None:
    simulator.quirks = [QuirkRule(quirk, every=4)]

    events, view = await build(simulated)

    types = [e.event for e in events]
    assert types[-1] == "done" and view["status"] in {"completed", "failed"}
    if view["status"] == "failed" or not view["state"]["success"]:
        assert "error" in types or any(e.data.get("status") in {"failed", "degraded"} for e in events), types
    else:
        assert view["state"]["workspace"]["files"]
