"""End to end: the real stack (`python -m deploy.stack`: dev server, worker, gateway) over real HTTP and SSE."""

import itertools
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


def sse_events(response: httpx.Response) -> Iterator[SseEvent]:
    """A response's events as they arrive; take some, and later the rest, from the same iterator."""
    buffer = ""
    for chunk in response.iter_text():
        buffer += chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            yield from parse_sse(block + "\n\n")


def read_events(response: httpx.Response, stop_after: int | None = None) -> list[SseEvent]:
    return list(itertools.islice(sse_events(response), stop_after))


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


def test_a_message_to_a_busy_session_is_answered_at_once_with_its_place_in_the_queue(stack: str) -> None:
    """Seed 000 §7.5: messages of one session queue; the second gets its headers and a `queued` event at once,
    not silence until its turn."""
    cat, kitten = {"text": "生成一只赛博朋克风格的猫", "sessionId": "busy"}, {"text": "画一只猫", "sessionId": "busy"}
    with httpx.Client(base_url=stack, timeout=60) as http, http.stream("POST", "/api/agent/chat", json=cat) as first:
        first_events = sse_events(first)
        next(first_events)  # the first turn is under way
        with http.stream("POST", "/api/agent/chat", json=kitten) as second:
            assert second.status_code == 200 and second.headers["x-run-id"].startswith("image-busy-2-")
            second_events = sse_events(second)
            queued = next(second_events)
            first_rest = list(first_events)
            second_rest = list(second_events)

    assert queued.event == "queued" and queued.data["data"]["position"] == 1
    first_end = first_rest[-1]
    assert first_end.event == "stream_end" and queued.data["ts"] < first_end.data["ts"], "queued while the first ran"
    began = next(e for e in second_rest if e.event != "queued")
    assert began.data["ts"] >= first_end.data["ts"] and second_rest[-1].event == "stream_end"
    assert [e.id for e in [queued, *second_rest]] == list(range(len(second_rest) + 1))
