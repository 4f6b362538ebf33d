"""The app builder over HTTP on the model simulator with a model that writes a real project (`ProjectAuthor`)
and the real toolchain: the run type-checks and builds the model's todo app and ends a success."""

from dataclasses import replace
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.app_builder.project_author import TODO_APP, project_files, todo_then_dark_mode
from tests.api.conftest import running_gateway
from tests.simulator.fixtures import simulator_settings
from tests.simulator.server import Simulator
from tests.sse import parse_sse

pytestmark = pytest.mark.toolchain

TODO = "做一个待办事项应用：可以添加、完成和删除待办"


async def test_the_model_s_todo_app_type_checks_builds_and_is_a_success(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, simulator: Simulator
) -> None:
    simulator.style = replace(simulator.style, tool_author=todo_then_dark_mode())
    settings = simulator_settings(simulator) | {"app_toolchain_checks": "on"}
    async with running_gateway(env, tmp_path, api_style_store, **settings) as gateway:
        response = await gateway.http.post("/v1/apps/runs", json={"message": TODO})
        assert response.status_code == 200, response.text
        run_id = response.headers["x-run-id"]
        events = parse_sse(response.text)
        state = (await gateway.http.get(f"/v1/runs/{run_id}")).json()["state"]
        listing = (await gateway.http.get(f"/v1/apps/runs/{run_id}/files")).json()

    assert state["success"], [e.data for e in events if e.event in ("quality_result", "error")]
    assert {"typecheck", "build"} <= set(state["quality"][-1]["checksRun"])
    assert {f["path"] for f in listing["files"]} >= set(project_files(TODO_APP))
