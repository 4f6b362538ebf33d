"""A writing chain over real HTTP (a gateway process, since the chat streams while the chain waits): a chain whose
project is deleted while it waits for the writer's choice ends with the README's PROJECT_NOT_FOUND, in its
`error` event and in the run's state, not with CHAIN_STEP_FAILED (issue 26 row 7); an English brainstorm chain
offers English options and writes the chosen one in English (issue 28 item 7), and its pause asks in English."""

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.gateway_process import gateway_process
from tests.sse import SseEvent, parse_sse
from tests.workflows.harness import serving, settings_for

BRAINSTORM = "先想三个结局方案，我选一个再写"
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
"""Chinese characters and the full-width punctuation (：，「) that goes with them."""


@pytest.fixture
async def http(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[httpx.AsyncClient]:
    host, port = env.client.service_client.config.target_host.rsplit(":", 1)
    settings = settings_for(tmp_path, temporal_host=host, temporal_port=int(port))
    async with serving(env.client, settings, style_store=api_style_store):
        with gateway_process(settings, tmp_path / "gateway.log") as gateway:
            async with httpx.AsyncClient(base_url=gateway.url, timeout=60) as client:
                yield client


async def test_a_chain_whose_project_was_deleted_while_it_waited_ends_with_project_not_found(
    http: httpx.AsyncClient,
) -> None:
    project = (await http.post("/v1/writing/projects", json={"name": "长夜"})).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "林舟推开门，苏念在等他。"})
    events: list[SseEvent] = []
    buffer = ""

    async with http.stream("POST", f"{base}/chat", json={"text": BRAINSTORM}) as response:
        assert response.status_code == 200
        run_id = response.headers["x-run-id"]
        async for chunk in response.aiter_text():
            buffer += chunk
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                events.extend(parse_sse(block + "\n\n"))
                if events[-1].event == "user_input_required":
                    assert (await http.delete(base)).status_code == 204
                    answered = await http.post(f"/v1/runs/{run_id}/input", json={"answer": "A"})
                    assert answered.status_code == 200, answered.text

    types = [event.event for event in events]
    assert "user_input_required" in types and types[-1] == "done"
    error = [event for event in events if event.event == "error"][-1].data["data"]
    assert error["code"] == "PROJECT_NOT_FOUND", error
    assert "WriterAgent" in error["message"], "the message still names the step that found the project gone"
    assert [e.data["data"]["completed"] for e in events if e.event == "chain_summary"] == [False]
    done = events[-1].data["data"]
    assert done["status"] == "failed" and done["error"]["code"] == "PROJECT_NOT_FOUND"
    view = (await http.get(f"/v1/runs/{run_id}")).json()
    assert view["state"]["error"]["code"] == "PROJECT_NOT_FOUND"
    assert (await http.get(base)).json()["error"]["code"] == "PROJECT_NOT_FOUND"


async def test_req_14_5_the_writers_own_idea_is_taken_at_the_pause_over_http(http: httpx.AsyncClient) -> None:
    """The offline brainstorm invites the writer's own idea; `POST /v1/runs/{id}/input` takes it (200, not
    INPUT_NOT_AN_OPTION) and the chain writes from it."""
    project = (await http.post("/v1/writing/projects", json={"name": "长夜"})).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "林舟推开门，苏念在等他。"})
    idea = "让林舟独自回到老宅，在灯下翻出那本旧账簿"
    events: list[SseEvent] = []
    buffer = ""

    async with http.stream("POST", f"{base}/chat", json={"text": BRAINSTORM}) as response:
        run_id = response.headers["x-run-id"]
        async for chunk in response.aiter_text():
            buffer += chunk
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                events.extend(parse_sse(block + "\n\n"))
                if events[-1].event == "user_input_required":
                    assert events[-1].data["data"]["allowFreeText"] is True
                    answered = await http.post(f"/v1/runs/{run_id}/input", json={"answer": idea})
                    assert answered.status_code == 200, answered.text

    assert events[-1].event == "done" and events[-1].data["data"]["status"] == "completed"
    draft = "".join(
        e.data["data"]["text"] for e in events if e.event == "content" and e.data["data"]["agent"] == "writer"
    )
    assert idea.removeprefix("让") in draft, "what the writer asked for happens in the scene"


async def test_item_7_an_english_brainstorm_chain_offers_english_options_and_writes_the_chosen_one(
    http: httpx.AsyncClient,
) -> None:
    """Offline, an English request's brainstorm answers in English (its label, its three options grounded in the
    project's people and plot thread), the pause asks in English (its question, its `title: summary` labels and
    the invitation to write one's own idea), and the draft narrates the chosen option's event, in English too."""
    project = (await http.post("/v1/writing/projects", json={"name": "Low Tide"})).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    chapter = {"title": "Harbor", "content": "Mara Vell walked into Greyhaven Docks. Tom Reyes was waiting there."}
    await http.post(f"{base}/chapters", json=chapter)
    for name in ("Mara", "Tom"):
        await http.post(f"{base}/characters", json={"name": name, "description": "a regular"})
    await http.post(f"{base}/plot-loops", json={"title": "the missing ledger", "plantedInChapter": 1})
    events: list[SseEvent] = []
    buffer = ""

    request = {"text": "Brainstorm three endings, then write the one I pick"}
    async with http.stream("POST", f"{base}/chat", json=request) as response:
        run_id = response.headers["x-run-id"]
        async for chunk in response.aiter_text():
            buffer += chunk
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                events.extend(parse_sse(block + "\n\n"))
                if events[-1].event == "user_input_required":
                    answered = await http.post(f"/v1/runs/{run_id}/input", json={"answer": "B"})
                    assert answered.status_code == 200, answered.text

    assert events[-1].event == "done" and events[-1].data["data"]["status"] == "completed"
    by_agent = {
        agent: "".join(
            e.data["data"]["text"] for e in events if e.event == "content" and e.data["data"]["agent"] == agent
        )
        for agent in ("brainstorm", "writer")
    }
    assert by_agent["brainstorm"].startswith("[Offline directions: no language model is connected]")
    pause = next(e.data["data"] for e in events if e.event == "user_input_required")
    options = pause["options"]
    assert [o["id"] for o in options] == ["A", "B", "C"]
    assert "Mara" in options[0]["label"] and "the missing ledger" in options[1]["label"]
    assert 'A new clue turns up in "the missing ledger"' in by_agent["writer"], "the chosen option (B) happens"
    assert pause["prompt"].startswith("Choose a direction") and "your own idea" in pause["prompt"]
    assert pause["allowFreeText"] is True
    for text in (by_agent["brainstorm"], by_agent["writer"], pause["prompt"], *(o["label"] for o in options)):
        assert not _CJK.search(text), text
    chinese = [f"{e.event}: {e.data['data']}" for e in events if _CJK.search(str(e.data["data"]))]
    assert not chinese, "the whole stream, the chain's thoughts and checks too, is English"
