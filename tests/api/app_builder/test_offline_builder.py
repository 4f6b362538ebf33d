"""Issue 27 item 1, honest offline over HTTP: without a model the app builder builds a todo list, shopping list,
notes or counter and says so (`offline` on its events); any other request is refused before a run starts
(422 OFFLINE_APP_UNSUPPORTED naming the kinds and LLM_PROVIDER), on the app route and the generic run API alike,
never built as a todo app."""

import pytest

from tests.api.conftest import Gateway
from tests.sse import parse_sse

WEATHER = "a weather dashboard with a city search"
BLOG = "a markdown blog editor called Inkwell"


@pytest.mark.parametrize("message", [WEATHER, BLOG, "a markdown blog editor"])
async def test_issue_27_an_app_the_offline_builder_does_not_build_is_refused_naming_what_it_builds(
    gateway: Gateway, message: str
) -> None:
    direct = await gateway.http.post("/v1/apps/runs", json={"message": message})
    generic = await gateway.http.post(
        "/v1/runs", json={"workflow": "AppBuilderWorkflow", "input": {"message": message}}
    )

    assert direct.status_code == generic.status_code == 422, direct.text
    assert "x-run-id" not in direct.headers, "no run starts"
    for refused in (direct, generic):
        error = refused.json()["error"]
        assert error["code"] == "OFFLINE_APP_UNSUPPORTED"
        for kind in ("todo list", "shopping list", "notes", "counter", "LLM_PROVIDER"):
            assert kind in error["message"], kind


async def test_issue_27_a_known_kind_is_built_offline_and_every_event_of_the_work_says_offline(
    gateway: Gateway,
) -> None:
    response = await gateway.http.post("/v1/apps/runs", json={"message": "a weekend shopping list called Groceries"})

    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    data = {event.event: [e.data["data"] for e in events if e.event == event.event] for event in events}
    assert all(ready["offline"] is True for ready in data["document_ready"])
    assert data["plan_ready"][0]["offline"] is True
    written = [f for f in data["task_finished"] if f["status"] == "completed" and f["agentId"] != "quality-agent"]
    assert written and all(finished["offline"] is True for finished in written), "every agent's task says offline"
    [ready] = data["app_ready"]
    assert ready["offline"] is True and ready["success"] is True
    app = await gateway.http.get(f"/v1/apps/runs/{response.headers['x-run-id']}/files/src/App.tsx")
    assert 'title="Groceries"' in app.text and "tick it off in the store" in app.text, "a shopping list"
