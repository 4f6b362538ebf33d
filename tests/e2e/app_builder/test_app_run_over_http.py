"""End to end over real HTTP on the real stack (`python -m deploy.stack`), offline: an app run streams its layers,
waves, tasks and quality result; its workspace zip unpacks into a project whose files all parse and whose imports
resolve (and which type-checks and builds where `npm` is on the machine); single files are served as text. A
worker killed with SIGKILL during the execution layer is started again and the run finishes without running any
finished task's activity again."""

import asyncio
import io
import json
import os
import shutil
import signal
import time
import zipfile
from collections.abc import Iterator

import httpx
import pytest
from temporalio.client import Client

from activities.app_builder.checks.imports import import_findings
from activities.app_builder.checks.parsers import parse_findings
from tests.e2e.image.test_stack import sse_events
from tests.stack_process import Stack, running_stack

pytestmark = pytest.mark.e2e

TODO = "做一个待办事项应用：可以添加、完成和删除待办，并按状态筛选"
REQUIRED_EVENTS = {
    "layer_started",
    "document_ready",
    "plan_ready",
    "wave_started",
    "task_started",
    "task_finished",
    "conflict",
    "quality_result",
    "app_ready",
    "done",
}
FINISH_S = 300.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data = tmp_path_factory.mktemp("data")
    with running_stack(data, tmp_path_factory.mktemp("logs") / "stack.log") as running:
        yield running


def test_an_app_run_gives_a_zip_of_a_project_that_parses(stack: Stack) -> None:
    with httpx.Client(base_url=stack.gateway, timeout=FINISH_S) as http:
        with http.stream("POST", "/v1/apps/runs", json={"message": TODO, "techStack": ["react", "typescript"]}) as r:
            assert r.status_code == 200, r.read()
            run_id = r.headers["x-run-id"]
            events = list(sse_events(r))
        types = [event.event for event in events]
        assert set(types) >= REQUIRED_EVENTS and types[-1] == "done"
        assert events[-1].data["data"]["status"] == "completed"
        [quality] = [e.data["data"] for e in events if e.event == "quality_result"]
        assert quality["passed"], quality
        if shutil.which("npm"):
            assert {"typecheck", "build"} <= set(quality["checksRun"]), quality["notes"]

        view = http.get(f"/v1/runs/{run_id}").json()
        assert view["state"]["plan"]["tasks"], "the plan is on the blackboard"

        download = http.get(f"/v1/apps/runs/{run_id}/workspace.zip")
        assert download.status_code == 200 and download.headers["content-type"] == "application/zip"
        assert download.headers["x-workspace-final"] == "true"
        with zipfile.ZipFile(io.BytesIO(download.content)) as archive:
            names = archive.namelist()
            assert all(name.startswith(f"{run_id}/") for name in names)
            files = {name.removeprefix(f"{run_id}/"): archive.read(name).decode() for name in names}
        assert {"package.json", "index.html", "src/main.tsx", "src/App.tsx"} <= set(files)
        findings, parsed = parse_findings(files)
        assert not findings and parsed >= 10
        assert not import_findings(files)

        listing = http.get(f"/v1/apps/runs/{run_id}/files").json()
        assert sorted(f["path"] for f in listing["files"]) == sorted(files)
        one = http.get(f"/v1/apps/runs/{run_id}/files/src/App.tsx")
        assert one.text == files["src/App.tsx"]
        assert (
            one.headers["content-type"].startswith("text/plain") and one.headers["x-content-type-options"] == "nosniff"
        )
        outside = http.get(f"/v1/apps/runs/{run_id}/files/..%2F..%2Fetc%2Fpasswd")
        assert outside.status_code == 404 and outside.json()["error"]["code"] == "FILE_NOT_FOUND"


def test_a_worker_killed_during_the_execution_layer_resumes_without_redoing_finished_tasks(stack: Stack) -> None:
    finished_before_kill: set[str] = set()
    with httpx.Client(base_url=stack.gateway, timeout=FINISH_S) as http:
        with http.stream("POST", "/v1/apps/runs", json={"message": "做一个记事本应用"}) as r:
            assert r.status_code == 200
            run_id = r.headers["x-run-id"]
            for event in sse_events(r):
                data = event.data["data"]
                if event.event == "task_finished" and data["status"] == "completed":
                    finished_before_kill.add(data["taskId"])
                if event.event == "wave_started" and data["wave"] == 2:
                    old = stack.processes()["worker"][0]
                    os.kill(old, signal.SIGKILL)
                    break
        deadline = time.monotonic() + FINISH_S
        status = "running"
        while time.monotonic() < deadline and status == "running":
            time.sleep(1)
            response = http.get(f"/v1/runs/{run_id}")
            status = response.json().get("status", "running") if response.status_code == 200 else "running"
        assert status == "completed", status
        assert stack.processes()["worker"][0] != old, "the stack started a new worker"

    attempts = asyncio.run(task_attempts(stack.temporal_address, run_id))
    assert finished_before_kill, "the kill came after a task had finished"
    for task_id in finished_before_kill:
        assert attempts[task_id] == [1], f"{task_id} finished before the kill and ran once"


async def task_attempts(address: str, run_id: str) -> dict[str, list[int]]:
    """Each execution task's attempts as the run's history records them; fails if a task was scheduled twice."""
    client = await Client.connect(address)
    history = await client.get_workflow_handle(run_id).fetch_history()
    task_of: dict[int, str] = {}
    attempts: dict[str, list[int]] = {}
    for event in history.events:
        if event.HasField("activity_task_scheduled_event_attributes"):
            scheduled = event.activity_task_scheduled_event_attributes
            if scheduled.activity_type.name.endswith("_agent"):
                task_id = json.loads(scheduled.input.payloads[0].data)["task"]["id"]
                assert task_id not in task_of.values(), f"task {task_id}'s activity was scheduled twice"
                task_of[event.event_id] = task_id
        elif event.HasField("activity_task_started_event_attributes"):
            started = event.activity_task_started_event_attributes
            if started.scheduled_event_id in task_of:
                attempts.setdefault(task_of[started.scheduled_event_id], []).append(started.attempt)
    assert set(attempts) == set(task_of.values()), "every scheduled task ran to its end"
    return attempts
