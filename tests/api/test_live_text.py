"""An agent's live text: the worker posts each piece to the gateway as the model writes it, the gateway hands it to
the run's open readers as `content_live` (SSE and WebSocket), and the `content` events record the same text in
batches of a second. The gateway runs on a loopback socket (the worker posts to it over HTTP, as in `make run`);
the model is the simulator at the realistic profile, 4× faster. The route takes a piece only with the workers'
secret."""

import asyncio
import json
import logging
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment
from websockets.asyncio.client import connect

from activities.common.live_text import LiveTextConfigError, live_poster
from activities.common.streaming import LIVE_BATCH_SECONDS
from api.live_text import CATCH_UP_CHARS, KEPT_SECONDS, READER_BACKLOG, LiveReaders
from models.settings import Settings
from models.streaming import LIVE_PIECE_CHARS, LIVE_TEXT_PATH, EndedCall, LivePiece
from runtime.quiet_logs import WITHOUT_LIVE_TEXT_POSTS
from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.api.echo.test_echo_over_http import answer_and_read
from tests.api.sockets import on_a_socket
from tests.api.test_runs_on_a_dev_server import start
from tests.simulator.fixtures import simulator_settings
from tests.simulator.profiles import REALISTIC
from tests.simulator.server import Simulator
from tests.sse import SseEvent, sse_stream
from tests.stack_process import free_port
from tests.workflows.streaming import shown_text

TIME_SCALE = 0.25
SECRET = "the-workers-secret"
WORKER = {"authorization": f"Bearer {SECRET}"}


@pytest.fixture
async def live(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, simulator: Simulator
) -> AsyncIterator[tuple[Gateway, str]]:
    """The gateway on a socket, its workers posting live text to it, the simulator as their model."""
    simulator.profile, simulator.time_scale = REALISTIC, TIME_SCALE
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    fields: dict[str, Any] = simulator_settings(simulator, "openai_chat") | {
        "live_text_urls": base,
        "live_text_secret": SECRET,
    }
    async with running_gateway(env, tmp_path, api_style_store, **fields) as gateway, on_a_socket(gateway.app, port):
        yield gateway, base


async def read_until_question(base: str, run_id: str) -> list[SseEvent]:
    """The run's events as they come, from its start until it asks its question."""
    events = []
    async with (
        httpx.AsyncClient(base_url=base, timeout=30) as http,
        http.stream("GET", f"/v1/runs/{run_id}/events") as response,
    ):
        assert response.status_code == 200
        async for event in sse_stream(response):
            events.append(event)
            if event.event == "user_input_required":
                break
    return events


async def test_a_reader_gets_the_agent_s_text_live_and_the_record_in_batches(
    live: tuple[Gateway, str], simulator: Simulator
) -> None:
    gateway, base = live
    run_id = await start(gateway, "EchoWorkflow", {"text": "今天天气不错，我们去西湖走走吧，顺便吃个午饭"})

    seen = await read_until_question(base, run_id)

    reply = simulator.log[-1].value["reply"]
    pieces = [event.data for event in seen if event.event == "content_live"]
    assert pieces and all(event.id is None for event in seen if event.event == "content_live"), "not the run's events"
    assert {piece["agent"] for piece in pieces} == {"reply"} and {piece["attempt"] for piece in pieces} == {1}
    offsets = [piece["offset"] for piece in pieces]
    assert offsets == [sum(len(p["text"]) for p in pieces[:i]) for i in range(len(pieces))], "in order, no gap"
    assert "".join(piece["text"] for piece in pieces) == reply, "the reply as the model wrote it"
    recorded = [event.data["data"] for event in await answer_and_read(gateway, run_id, "keep", text=True)]
    content = [data for data in recorded if "agent" in data]
    assert shown_text(content) == reply, "the content events record the same text"
    call = simulator.log[-1]
    assert call.first_token is not None and call.ended is not None
    batches = 1 + math.ceil((call.ended - call.first_token) / LIVE_BATCH_SECONDS)
    assert len(content) <= batches, "recorded in batches of a second (the first piece at once), whatever the load"


async def test_a_reader_that_connects_mid_call_sees_the_text_so_far_at_once(
    live: tuple[Gateway, str], simulator: Simulator
) -> None:
    gateway, base = live
    simulator.time_scale = 1.0  # the profile's own speed: the reply takes a second or more to write
    run_id = await start(
        gateway, "EchoWorkflow", {"text": "下周要交的报告还差两节，今晚先写完方法部分，明天再补实验结果和讨论"}
    )
    async with (
        httpx.AsyncClient(base_url=base, timeout=30) as http,
        http.stream("GET", f"/v1/runs/{run_id}/events") as first,
    ):
        async for event in sse_stream(first):
            if event.event == "content_live":
                break  # the model is writing: a second reader connects now (a page reloaded)
        late = await read_until_question(base, run_id)

    pieces = [event.data for event in late if event.event == "content_live"]
    reply = simulator.log[-1].value["reply"]
    assert pieces and pieces[0]["offset"] == 0, "the text so far first, from its start"
    assert len(pieces[0]["text"]) > 0
    assert [p["offset"] for p in pieces] == [sum(len(p["text"]) for p in pieces[:i]) for i in range(len(pieces))]
    assert "".join(p["text"] for p in pieces) == reply, "joined up with what followed: the whole reply"
    await answer_and_read(gateway, run_id, "keep")


async def test_the_websocket_carries_the_live_text_too(live: tuple[Gateway, str], simulator: Simulator) -> None:
    gateway, base = live
    run_id = await start(gateway, "EchoWorkflow", {"text": "明天去爬山，记得带水和伞"})
    messages = []
    async with connect(f"{base.replace('http', 'ws')}/v1/runs/{run_id}/ws", open_timeout=10) as socket:
        async for text in socket:
            message = json.loads(text)
            messages.append(message)
            if message.get("type") == "user_input_required":
                break
    pieces = [message["data"] for message in messages if message["type"] == "content_live"]
    assert all("seq" not in message for message in messages if message["type"] == "content_live")
    assert "".join(piece["text"] for piece in pieces) == simulator.log[-1].value["reply"]
    await answer_and_read(gateway, run_id, "keep")


async def test_a_gateway_that_cannot_be_reached_costs_its_readers_the_live_text_only(
    env: WorkflowEnvironment,
    tmp_path: Path,
    api_style_store: LanceStyleStore,
    simulator: Simulator,
    caplog: pytest.LogCaptureFixture,
) -> None:
    simulator.profile, simulator.time_scale = REALISTIC, TIME_SCALE
    nowhere = {"live_text_urls": f"http://127.0.0.1:{free_port()}", "live_text_secret": SECRET}
    fields: dict[str, Any] = simulator_settings(simulator, "openai_chat") | nowhere
    with caplog.at_level(logging.WARNING, logger="activities.live_text"):
        async with running_gateway(env, tmp_path, api_style_store, **fields) as gateway:
            run_id = await start(gateway, "EchoWorkflow", {"text": "周末一起去看海吧，带上相机"})
            events = await answer_and_read(gateway, run_id, "keep", text=True)

    content = [event.data["data"] for event in events if event.event == "content"]
    assert shown_text(content) == simulator.log[-1].value["reply"] and events[-1].event == "done"
    warnings = [record.getMessage() for record in caplog.records if record.name == "activities.live_text"]
    assert len(warnings) == 1 and "readers see the batched text only" in warnings[0], warnings


def test_the_gateway_s_access_log_leaves_out_the_live_posts_only() -> None:
    def access(path: str) -> logging.LogRecord:  # uvicorn's access log record
        args = ("127.0.0.1:50000", "POST", path, "1.1", 204)
        return logging.LogRecord("uvicorn.access", logging.INFO, __file__, 0, '%s - "%s %s HTTP/%s" %d', args, None)

    assert not WITHOUT_LIVE_TEXT_POSTS.filter(access(LIVE_TEXT_PATH))
    assert WITHOUT_LIVE_TEXT_POSTS.filter(access("/v1/runs/echo-1/input"))


async def test_the_route_takes_a_piece_only_with_the_workers_secret(live: tuple[Gateway, str]) -> None:
    gateway, _ = live
    piece = {"workflowId": "x", "agent": "reply", "call": "1", "attempt": 1, "round": 0, "offset": 0, "text": "假的"}

    for headers in ({}, {"authorization": "Bearer guess"}, {"authorization": SECRET}):
        refused = await gateway.http.post("/internal/live-text", json={"pieces": [piece]}, headers=headers)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "UNAUTHORIZED", refused.text
    assert (await gateway.http.post("/internal/live-text", json={"pieces": [piece]}, headers=WORKER)).status_code == 204
    large = {"pieces": [piece | {"text": "字" * 40_000}]}
    assert (await gateway.http.post("/internal/live-text", json=large, headers=WORKER)).status_code == 413
    assert (await gateway.http.post("/internal/live-text", json=piece, headers=WORKER)).status_code == 422
    broken = await gateway.http.post("/internal/live-text", content=b'{"pieces": [', headers=WORKER)
    assert broken.status_code == 422 and broken.json()["error"]["code"] == "INVALID_REQUEST"
    assert "/internal/live-text" not in (await gateway.http.get("/openapi.json")).json()["paths"]


async def test_a_gateway_without_the_secret_takes_no_live_text(gateway: Gateway) -> None:
    piece = {"workflowId": "x", "agent": "reply", "call": "1", "attempt": 1, "round": 0, "offset": 0, "text": "假的"}

    refused = await gateway.http.post(
        "/internal/live-text", json={"pieces": [piece]}, headers={"authorization": "Bearer "}
    )

    assert refused.status_code == 404 and refused.json()["error"]["code"] == "NOT_FOUND"


async def test_a_reader_that_fell_behind_misses_pieces_and_the_others_still_get_them() -> None:
    readers = LiveReaders()
    slow: asyncio.Queue[Any] = asyncio.Queue()
    quick: asyncio.Queue[Any] = asyncio.Queue()
    piece = LivePiece(workflow_id="run", agent="writer", call="1", attempt=1, round=0, offset=0, text="字")

    with readers.reading("run", slow), readers.reading("run", quick):
        for _ in range(READER_BACKLOG):
            slow.put_nowait(None)
        assert readers.publish(piece) == 1
        assert quick.get_nowait() == piece and slow.qsize() == READER_BACKLOG
    assert readers.publish(piece) == 0, "a closed stream reads nothing more"


def test_a_worker_that_posts_live_text_needs_the_secret_and_http_urls(tmp_path: Path) -> None:
    assert live_poster(Settings(data_dir=tmp_path)) is None
    with pytest.raises(LiveTextConfigError, match="LIVE_TEXT_SECRET"):
        live_poster(Settings(data_dir=tmp_path, live_text_urls="http://gateway:8000"))
    with pytest.raises(LiveTextConfigError, match="not an http"):
        live_poster(Settings(data_dir=tmp_path, live_text_urls="gateway:8000", live_text_secret=SECRET))
    poster = live_poster(Settings(data_dir=tmp_path, live_text_urls="http://a:1, http://b:2/", live_text_secret=SECRET))
    assert poster is not None and poster.urls == ["http://a:1/internal/live-text", "http://b:2/internal/live-text"]


async def test_a_reader_that_connects_mid_call_gets_the_text_so_far_then_what_follows() -> None:
    now = [0.0]
    readers = LiveReaders(clock=lambda: now[0])
    writer = LivePiece(workflow_id="run", agent="writer", call="3", attempt=1, round=0, offset=0, text="春天")
    readers.publish(writer)
    readers.publish(writer.model_copy(update={"offset": 2, "text": "来了，"}))
    readers.publish(writer.model_copy(update={"workflow_id": "other", "text": "别的运行"}))
    late: asyncio.Queue[Any] = asyncio.Queue()

    with readers.reading("run", late):
        readers.publish(writer.model_copy(update={"offset": 5, "text": "花开了"}))
        got = [late.get_nowait() for _ in range(late.qsize())]

    assert [(piece.offset, piece.text) for piece in got] == [(0, "春天来了，"), (5, "花开了")], "joined up from 0"
    assert {piece.workflow_id for piece in got} == {"run"} and {piece.call for piece in got} == {"3"}


async def test_the_text_so_far_is_kept_only_while_it_joins_up_and_the_call_goes_on() -> None:
    now = [0.0]
    readers = LiveReaders(clock=lambda: now[0])
    piece = LivePiece(workflow_id="run", agent="writer", call="1", attempt=1, round=0, offset=0, text="第一段")
    readers.publish(piece)
    readers.publish(piece.model_copy(update={"offset": 9, "text": "漏了一段之后"}))  # a post this gateway missed
    readers.publish(piece.model_copy(update={"call": "2", "text": "第二个调用"}))
    now[0] = KEPT_SECONDS + 2
    full = LIVE_PIECE_CHARS
    for offset in range(0, CATCH_UP_CHARS + 1, full):
        readers.publish(piece.model_copy(update={"call": "3", "offset": offset, "text": "字" * full}))
    readers.publish(piece.model_copy(update={"call": "4", "text": "字" * full}))
    readers.publish(piece.model_copy(update={"call": "4", "offset": full, "text": "句"}))
    readers.publish(piece.model_copy(update={"call": "5", "text": "已经结束的调用"}))
    readers.ended(EndedCall(workflow_id="run", call="5"))
    late: asyncio.Queue[Any] = asyncio.Queue()

    with readers.reading("run", late):
        got = [late.get_nowait() for _ in range(late.qsize())]

    assert [(piece.call, piece.offset, piece.text[-1], len(piece.text)) for piece in got] == [
        ("4", 0, "字", full),
        ("4", full, "句", 1),
    ], "a call after a gap, one silent too long, one too long to keep and one that ended are not caught up"
