"""The benchmark's LangGraph baseline starts on the project's current image activities and streams one chat turn to
`stream_end`: `make bench` compares against a baseline that works (it once failed to start when the image family
gained an activity the offline graph does not use)."""

from pathlib import Path

import httpx

from tests.bench.baseline_server import create_app
from tests.sse import parse_sse
from tests.workflows.harness import settings_for


async def test_the_baseline_streams_a_chat_turn_to_stream_end(tmp_path: Path) -> None:
    app = create_app(settings_for(tmp_path))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://baseline") as http,
    ):
        response = await http.post("/api/agent/chat", json={"text": "生成一只赛博朋克风格的猫", "sessionId": "b"})

    events = parse_sse(response.text)
    assert response.status_code == 200 and events[-1].event == "stream_end"
    assert events[-1].data["data"]["status"] == "completed"
    assert {e.data["node"] for e in events if e.event == "thought_log"} >= {"planner", "executor", "critic"}
