"""End to end: the real stack (`python -m deploy.stack`: dev server, worker, gateway) over real HTTP and SSE."""

from collections.abc import Iterator

import httpx
import pytest

from tests.sse import SseEvent, parse_sse
from tests.stack_process import running_stack

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("data")
    with running_stack(data, tmp_path_factory.mktemp("logs") / "stack.log") as running:
        yield running.gateway


def read_events(response: httpx.Response, stop_after: int | None = None) -> list[SseEvent]:
    events: list[SseEvent] = []
    buffer = ""
    for chunk in response.iter_text():
        buffer += chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            events += parse_sse(block + "\n\n")
            if stop_after is not None and len(events) >= stop_after:
                return events
    return events


def test_chat_streams_over_http_and_resumes_with_last_event_id(stack: str) -> None:
    body = {"text": "生成一只赛博朋克风格的猫", "sessionId": "e2e"}
    with httpx.Client(base_url=stack, timeout=60) as http:
        with http.stream("POST", "/api/agent/chat", json=body) as response:
            assert response.status_code == 200
            run_id = response.headers["x-run-id"]
            first = read_events(response, stop_after=3)  # then drop the connection mid-run
        last_seen = first[-1].id
        with http.stream("GET", f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": str(last_seen)}) as response:
            rest = read_events(response)

        events = first + rest
        assert [e.id for e in events] == list(range(len(events)))
        assert events[-1].event == "stream_end" and events[-1].data["data"]["status"] == "completed"
        assert {e.data["node"] for e in events if e.event == "thought_log"} >= {"planner", "rag", "executor", "critic"}
        canvas = [e for e in events if e.event == "gen_ui_component" and e.data["data"]["widgetType"] == "SmartCanvas"]
        image = http.get(canvas[-1].data["data"]["props"]["imageUrl"])
        assert image.status_code == 200 and image.content.startswith(b"\x89PNG")

        run = http.get(f"/v1/runs/{run_id}").json()
        assert run["status"] == "completed" and run["state"]["intent"]["action"] == "generate_image"
        assert run["state"]["metadata"]["transitions"][-1] == ["genui", "stream_end"]
