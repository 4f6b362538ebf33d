"""A chat turn with `preferredModel: "qwen-image"` through the gateway on the real stack, DashScope's image API
played by the loopback server (`tests.workflows.image.dashscope_double`): the task is submitted once, polled on
the workflow clock, its image copied into the blob store and served by the SmartCanvas URL; and the same with the
worker killed (SIGKILL) while the task is being polled: the new worker polls on, nothing is submitted twice."""

import io
import os
import signal
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from PIL import Image

from tests.e2e.image.test_stack import sse_events
from tests.llm.loopback import Loopback
from tests.sse import SseEvent
from tests.stack_process import Stack, running_stack
from tests.workflows.image.dashscope_double import DashScopeDouble

pytestmark = pytest.mark.e2e

CAT = "生成一只赛博朋克风格的猫"
FINISH_S = 120.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, loopback_server: Loopback) -> Iterator[Stack]:
    env = {"DASHSCOPE_API_KEY": "sk-test-dashscope", "DASHSCOPE_BASE_URL": loopback_server.base_url}
    data = tmp_path_factory.mktemp("data")
    with running_stack(data, tmp_path_factory.mktemp("logs") / "stack.log", env=env) as running:
        yield running


def smart_canvas_url(http: httpx.Client, run_id: str) -> str:
    deadline = time.monotonic() + FINISH_S
    while time.monotonic() < deadline:
        view = http.get(f"/v1/runs/{run_id}")
        if view.status_code == 200 and view.json()["status"] == "completed":
            result = view.json()["state"]["executionResult"]
            url: str = result["imageUrl"]
            assert result["metadata"]["provider"] == "dashscope"
            return url
        time.sleep(0.5)
    raise AssertionError(f"run {run_id} did not complete in {FINISH_S:g} s")


def assert_png(http: httpx.Client, url: str) -> None:
    image = http.get(url)
    assert image.status_code == 200 and Image.open(io.BytesIO(image.content)).format == "PNG"


def test_a_hosted_model_is_submitted_once_polled_and_its_image_served(stack: Stack, loopback: Loopback) -> None:
    fake = DashScopeDouble(base_url=loopback.base_url, running_polls=1)
    loopback.responder = fake
    with httpx.Client(base_url=stack.gateway, timeout=FINISH_S) as http:
        body = {"text": CAT, "sessionId": "hosted-1", "preferredModel": "qwen-image"}
        with http.stream("POST", "/api/agent/chat", json=body) as response:
            assert response.status_code == 200
            run_id = response.headers["x-run-id"]
            events = list(sse_events(response))
        assert events[-1].event == "stream_end" and events[-1].data["data"]["status"] == "completed"
        canvas = [e.data["data"] for e in events if e.event == "gen_ui_component"]
        assert any(c["widgetType"] == "SmartCanvas" for c in canvas)
        assert_png(http, smart_canvas_url(http, run_id))
    assert (fake.calls["accepted"], fake.calls["poll"], fake.calls["fetch"]) == (1, 2, 1)


def test_a_worker_killed_while_the_task_is_polled_resumes_without_submitting_again(
    stack: Stack, loopback: Loopback
) -> None:
    fake = DashScopeDouble(base_url=loopback.base_url, running_polls=4)
    loopback.responder = fake
    run_ids: list[str] = []
    streamed: list[SseEvent] = []

    def chat() -> None:
        with httpx.Client(base_url=stack.gateway, timeout=FINISH_S) as http:
            body = {"text": CAT, "sessionId": "hosted-2", "preferredModel": "qwen-image"}
            with http.stream("POST", "/api/agent/chat", json=body) as response:
                run_ids.append(response.headers["x-run-id"])
                streamed.extend(sse_events(response))

    talker = threading.Thread(target=chat)
    talker.start()
    deadline = time.monotonic() + FINISH_S
    while fake.calls["poll"] < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fake.calls["poll"] >= 1, "the task was polled"
    old = stack.processes()["worker"][0]
    os.kill(old, signal.SIGKILL)
    talker.join(timeout=FINISH_S)

    last = streamed[-1:]
    assert last and last[0].event == "stream_end", f"the stream went on through the worker's death: {last}"
    assert streamed[-1].data["data"]["status"] == "completed"

    with httpx.Client(base_url=stack.gateway, timeout=FINISH_S) as http:
        assert_png(http, smart_canvas_url(http, run_ids[0]))
    assert stack.processes()["worker"][0] != old, "the stack started a new worker"
    assert fake.calls["accepted"] == 1, "the task was submitted once"
    assert fake.calls["poll"] >= 5 and fake.calls["fetch"] >= 1
