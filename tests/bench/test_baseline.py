"""The benchmark's LangGraph baseline starts on the project's current image activities and streams one chat turn to
`stream_end`: `make bench` compares against a baseline that works (it once failed to start when the image family
gained an activity the offline graph does not use). Its run's path is the six nodes of the declared graph the
project's run of the same prompt visits (`tests/workflows/image/test_image_agent.py`): the count both systems'
orchestration cost per node is divided by."""

from pathlib import Path

import httpx

from tests.bench.baseline_server import create_app
from tests.bench.test_node_count import HEADLINE_SIX
from tests.sse import parse_sse
from tests.workflows.harness import settings_for


async def test_the_baseline_streams_a_chat_turn_to_stream_end(tmp_path: Path) -> None:
    app = create_app(settings_for(tmp_path))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://baseline") as http,
    ):
        response = await http.post("/api/agent/chat", json={"text": "生成一只赛博朋克风格的猫", "sessionId": "b"})
        view = (await http.get(f"/v1/runs/{response.headers['x-run-id']}")).json()

    events = parse_sse(response.text)
    assert response.status_code == 200 and events[-1].event == "stream_end"
    assert events[-1].data["data"]["status"] == "completed"
    assert {e.data["node"] for e in events if e.event == "thought_log"} >= {"planner", "executor", "critic"}
    assert view["nodes"] == HEADLINE_SIX
