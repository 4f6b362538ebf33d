"""The template family end to end over HTTP, as a client uses it: `POST /v1/runs` starts an echo run, its state
shows the question, `POST /v1/runs/{id}/input` answers it, and its events tell the whole run — offline, with a
model that answers, and with a model whose answers cannot be read (the degrade event, then the offline reply)."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.api.test_runs_on_a_dev_server import eventually, start
from tests.llm.answers import chat_completion, llm_settings
from tests.llm.loopback import Loopback
from tests.sse import SseEvent, parse_sse
from workflows.echo.graph import GRAPH


@pytest.fixture
async def modelled(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, loopback: Loopback
) -> AsyncIterator[Gateway]:
    """The gateway and workers with the loopback server as the configured model."""
    async with running_gateway(env, tmp_path, api_style_store, **llm_settings(loopback.base_url)) as gateway:
        yield gateway


async def answer_and_read(gateway: Gateway, run_id: str, answer: str, *, text: bool = False) -> list[SseEvent]:
    """Wait for the run's question, answer it over HTTP, and read the run's events to its end; the `content`
    events (the model's reply as it was written) only with `text`."""
    view = await eventually(gateway, f"/v1/runs/{run_id}", lambda body: body["awaitingInput"] is not None)
    assert view["awaitingInput"]["prompt"] == "保持这个回答，还是全部大写？", view
    answered = await gateway.http.post(f"/v1/runs/{run_id}/input", json={"answer": answer})
    assert answered.status_code == 200, answered.text
    events = parse_sse((await gateway.http.get(f"/v1/runs/{run_id}/events")).text)
    return events if text else [event for event in events if event.event != "content"]


def transitions(view: dict[str, Any]) -> list[tuple[str, str]]:
    return [(source, target) for source, target in view["state"]["metadata"]["transitions"]]


async def test_an_offline_echo_run_replies_counts_asks_and_ends_with_the_chosen_text(gateway: Gateway) -> None:
    run_id = await start(gateway, "EchoWorkflow", {"text": "你好，durable world"})

    events = await answer_and_read(gateway, run_id, "shout")

    types = [event.event for event in events]
    assert types == [
        "reply_ready",
        "tool_result",
        "user_input_required",
        "user_input_received",
        "echo_ready",
        "done",
    ]
    reply = events[0].data["data"]
    assert reply == {"text": "（离线回声）你好，durable world", "offline": True}
    assert events[1].data["data"] == {"characters": len(reply["text"]), "words": 8}  # 6 CJK characters and 2 words
    assert events[4].data["data"]["text"] == "（离线回声）你好，DURABLE WORLD"
    view = (await gateway.http.get(f"/v1/runs/{run_id}")).json()
    assert view["status"] == "completed" and view["state"]["choice"] == "shout"
    assert all(GRAPH.has_edge(source, target) for source, target in transitions(view))


async def test_a_run_with_a_model_uses_its_reply(modelled: Gateway, loopback: Loopback) -> None:
    loopback.queue(chat_completion({"reply": "收到：今天天气不错。"}))
    run_id = await start(modelled, "EchoWorkflow", {"text": "今天天气不错"})

    events = await answer_and_read(modelled, run_id, "keep")

    assert events[0].event == "reply_ready" and events[0].data["data"] == {
        "text": "收到：今天天气不错。",
        "offline": False,
    }
    assert [e.data["data"]["text"] for e in events if e.event == "echo_ready"] == ["收到：今天天气不错。"]
    assert "degraded" not in {e.event for e in events}


async def test_a_model_whose_answers_cannot_be_read_degrades_to_the_offline_reply_and_says_so(
    modelled: Gateway, loopback: Loopback
) -> None:
    loopback.queue(chat_completion("我觉得挺好"), chat_completion({"answer": "不是要的字段"}))  # the answer, the repair
    run_id = await start(modelled, "EchoWorkflow", {"text": "今天天气不错"})

    events = await answer_and_read(modelled, run_id, "keep")

    assert [e.event for e in events[:2]] == ["degraded", "reply_ready"]
    assert events[0].data["data"]["node"] == "reply" and events[0].data["data"]["reason"]
    assert events[1].data["data"] == {"text": "（离线回声）今天天气不错", "offline": True}
    view = (await modelled.http.get(f"/v1/runs/{run_id}")).json()
    assert view["status"] == "completed" and view["state"]["finalText"] == "（离线回声）今天天气不错"


async def test_an_echo_request_without_text_is_refused_with_a_code(gateway: Gateway) -> None:
    response = await gateway.http.post("/v1/runs", json={"workflow": "EchoWorkflow", "input": {"text": ""}})

    assert response.status_code == 422 and response.json()["error"]["code"] == "INVALID_REQUEST"
