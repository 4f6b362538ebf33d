"""End to end over real HTTP on the real stack (`python -m deploy.stack`): a writer creates a project, adds a
chapter and two characters, asks for a BrainstormExpand chain, gets `user_input_required` with the options while
the stream stays open, answers through `POST /v1/runs/{id}/input`, and receives the Writer's text and `done`."""

from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.image.test_stack import sse_events
from tests.stack_process import running_stack

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("data")
    with running_stack(data, tmp_path_factory.mktemp("logs") / "stack.log") as running:
        yield running.gateway


def readme_project(http: httpx.Client) -> str:
    """The README's project: one chapter and two characters; its path."""
    project = http.post("/v1/writing/projects", json={"name": "长夜", "genre": "悬疑"}).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    chapter = {"title": "雨夜", "content": "林舟推开警局的门。苏念在档案室等他，桌上摊着老陈的旧案卷。"}
    assert http.post(f"{base}/chapters", json=chapter).status_code == 201
    for name, description in [("林舟", "退役侦探，沉默寡言"), ("苏念", "调查记者，执着")]:
        assert http.post(f"{base}/characters", json={"name": name, "description": description}).status_code == 201
    return base


def test_req_14_5_brainstorm_expand_over_http(stack: str) -> None:
    with httpx.Client(base_url=stack, timeout=60) as http:
        base = readme_project(http)

        seen: list[str] = []
        chosen_event = ""
        with http.stream("POST", f"{base}/chat", json={"text": "先想三个结局方案，我选一个再写"}) as response:
            assert response.status_code == 200, response.read()
            run_id = response.headers["x-run-id"]
            for event in sse_events(response):
                seen.append(event.event)
                if event.event == "user_input_required":
                    options = event.data["data"]["options"]
                    assert [o["id"] for o in options] == ["A", "B", "C"]
                    view = http.get(f"/v1/runs/{run_id}").json()
                    assert view["awaitingInput"]["questionId"] == event.data["data"]["questionId"]
                    stale = {"answer": "B", "questionId": "an-earlier-question"}
                    refused = http.post(f"/v1/runs/{run_id}/input", json=stale)
                    assert refused.status_code == 409 and refused.json()["error"]["code"] == "INPUT_QUESTION_CHANGED"
                    assert event.data["data"]["allowFreeText"], "the writer's own idea is taken too (Req 14.5)"
                    # the draft narrates the chosen option's event (its label's last part), not its title
                    chosen_event = options[1]["label"].split("：")[-1].split("；")[0]
                    answered = http.post(f"/v1/runs/{run_id}/input", json={"answer": "B"})
                    assert answered.status_code == 200, answered.text
                if event.event == "content" and chosen_event:
                    text = event.data["data"]["text"]
                    assert "林舟" in text or "苏念" in text

        assert seen[-1] == "done"
        assert seen.index("user_input_required") < seen.index("user_input_received") < seen.index("chain_summary")
        state = http.get(f"/v1/runs/{run_id}").json()
        assert state["status"] == "completed"
        assert chosen_event in state["state"]["result"]["text"], "the Writer wrote the chosen option"
