"""The embedded stack supervises: kill -9 of the worker, the gateway or the Temporal dev server, and the stack
starts it again; runs complete afterwards, and a stream cut by the Temporal server resumes or says where it
stopped (`STREAM_INTERRUPTED` with its last event id). Closed runs are kept `RUN_RETENTION_DAYS`, not the dev
server's 24 h, across its restarts too."""

import os
import signal
import time
from collections.abc import Iterator

import httpx
import pytest
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client

from models.settings import Settings
from tests.e2e.image.test_stack import sse_events
from tests.sse import parse_sse
from tests.stack_process import Stack, running_stack

pytestmark = pytest.mark.e2e

RECOVERY_S = 60.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data = tmp_path_factory.mktemp("data")
    with running_stack(data, tmp_path_factory.mktemp("logs") / "stack.log") as running:
        yield running


def kill(stack: Stack, role: str) -> int:
    """kill -9 the process of `role` the supervisor started; its pid."""
    pid = stack.processes()[role][0]
    os.kill(pid, signal.SIGKILL)
    return pid


def wait_for_restart(stack: Stack, role: str, old_pid: int) -> None:
    deadline = time.monotonic() + RECOVERY_S
    while time.monotonic() < deadline:
        pids = stack.processes()[role]
        if pids and pids[0] != old_pid:
            return
        time.sleep(0.2)
    raise AssertionError(f"{role} was not started again within {RECOVERY_S:.0f} s")


def chat_completes(stack: Stack, session: str) -> str:
    """A chat turn, retried while the stack is coming back; its run id once it streamed to the end."""
    deadline = time.monotonic() + RECOVERY_S
    with httpx.Client(base_url=stack.gateway, timeout=60) as http:
        while time.monotonic() < deadline:
            try:
                response = http.post("/api/agent/chat", json={"text": "画一只猫", "sessionId": session})
            except httpx.TransportError:
                time.sleep(0.5)
                continue
            if response.status_code == 200:
                events = parse_sse(response.text)
                if events and events[-1].event == "stream_end":
                    assert events[-1].data["data"]["status"] == "completed"
                    return response.headers["x-run-id"]
            time.sleep(0.5)
    raise AssertionError("no chat turn completed after the restart")


@pytest.mark.parametrize("role", ["worker", "gateway"])
def test_a_killed_worker_or_gateway_is_started_again(stack: Stack, role: str) -> None:
    old = kill(stack, role)

    wait_for_restart(stack, role, old)

    chat_completes(stack, f"after-{role}")


def test_a_killed_temporal_server_is_started_again_and_streams_resume_or_say_where_they_stopped(stack: Stack) -> None:
    with httpx.Client(base_url=stack.gateway, timeout=120) as http:
        with http.stream("POST", "/api/agent/chat", json={"text": "生成一只赛博朋克风格的猫", "sessionId": "t9"}) as r:
            assert r.status_code == 200
            run_id = r.headers["x-run-id"]
            stream = sse_events(r)
            first = [next(stream)]
            old = kill(stack, "temporal")
            rest = list(stream)  # resumes once the server is back, or ends with STREAM_INTERRUPTED
        wait_for_restart(stack, "temporal", old)

        events = first + rest
        ids = [e.id for e in events if e.id is not None]
        assert ids == list(range(len(ids)))  # nothing twice, nothing skipped
        if events[-1].event != "stream_end":
            assert events[-1].event == "error" and events[-1].data["code"] == "STREAM_INTERRUPTED"
            assert events[-1].data["lastEventId"] == ids[-1]
        deadline = time.monotonic() + RECOVERY_S
        while time.monotonic() < deadline:  # the run itself completes after the restart
            view = http.get(f"/v1/runs/{run_id}")
            if view.status_code == 200 and view.json()["status"] == "completed":
                break
            time.sleep(0.5)
        else:
            raise AssertionError(f"{run_id} did not complete after the Temporal server came back")
        resumed = parse_sse(http.get(f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": str(ids[-1])}).text)
        assert resumed[-1].event == "stream_end"  # the rest, or (all seen already) the terminal event again
        resumed_ids = [e.id for e in resumed]
        assert resumed_ids == list(range(ids[-1] + 1, ids[-1] + 1 + len(resumed))) or resumed_ids == [ids[-1]]
    chat_completes(stack, "after-temporal")


async def test_closed_runs_are_kept_for_the_configured_days_not_the_dev_server_s_day(stack: Stack) -> None:
    client = await Client.connect(stack.temporal_address)
    namespace = await client.workflow_service.describe_namespace(DescribeNamespaceRequest(namespace="default"))

    retention = namespace.config.workflow_execution_retention_ttl.ToTimedelta()
    assert retention.days == Settings().run_retention_days > 1
