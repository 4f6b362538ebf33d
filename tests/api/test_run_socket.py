"""`GET /v1/runs/{id}/ws`: a run's events over a WebSocket, checked against its SSE stream. The in-process gateway
is served by uvicorn on a loopback port (a WebSocket needs a real socket) and read with the `websockets` client,
as a browser or a script would: the key as a `bearer.<key>` subprotocol or an `Authorization` header."""

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from temporalio.service import RPCError, RPCStatusCode
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedError

from api import streaming
from api.routes.run_socket import EVENTS_PROTOCOL
from tests.api.conftest import ALICE, BOB, Gateway
from tests.api.sockets import on_a_socket
from tests.sse import parse_sse

ALICE_IN_A_BROWSER = [EVENTS_PROTOCOL, "bearer.alice-key"]


@pytest.fixture
async def sockets(keyed: Gateway) -> AsyncIterator[str]:
    async with on_a_socket(keyed.app) as base:
        yield base


async def read_socket(url: str, **options: Any) -> tuple[list[dict[str, Any]], int | None, str | None]:
    """Every message of the socket at `url` until it closes, its close code and the subprotocol it selected."""
    messages: list[dict[str, Any]] = []
    async with connect(url, open_timeout=10, **options) as socket:
        try:
            async for text in socket:
                messages.append(json.loads(text))
        except ConnectionClosedError:
            pass
    return messages, socket.close_code, socket.subprotocol


async def start_run(gateway: Gateway, session: str) -> str:
    body = {"workflow": "ImageAgentWorkflow", "input": {"text": "画一只猫"}, "sessionId": session}
    response = await gateway.http.post("/v1/runs", json=body, headers=ALICE)
    assert response.status_code == 201, response.text
    gateway.sessions.add(f"session-alice-{session}")
    run_id: str = response.json()["runId"]
    return run_id


async def sse_events(gateway: Gateway, run_id: str, query: str = "") -> list[Any]:
    response = await gateway.http.get(f"/v1/runs/{run_id}/events{query}", headers=ALICE)
    assert response.status_code == 200, response.text
    return [event.data for event in parse_sse(response.text)]


async def test_a_run_over_the_websocket_is_its_sse_stream(keyed: Gateway, sockets: str) -> None:
    run_id = await start_run(keyed, "live")

    messages, code, protocol = await read_socket(f"{sockets}/v1/runs/{run_id}/ws", subprotocols=ALICE_IN_A_BROWSER)

    assert protocol == EVENTS_PROTOCOL and code == 1000
    assert messages == await sse_events(keyed, run_id)
    assert [m["seq"] for m in messages] == list(range(len(messages)))
    assert messages[-1]["type"] == "stream_end" and messages[-1]["terminal"] is True
    assert set(messages[0]) >= {"seq", "type", "node", "data", "ts", "terminal"}


async def test_the_websocket_resumes_after_an_event_id_like_sse(keyed: Gateway, sockets: str) -> None:
    run_id = await start_run(keyed, "resumed")
    everything = await sse_events(keyed, run_id)
    url = f"{sockets}/v1/runs/{run_id}/ws"

    resumed, code, protocol = await read_socket(f"{url}?after=2", additional_headers=ALICE)
    at_the_end, end_code, _ = await read_socket(f"{url}?after={everything[-1]['seq']}", additional_headers=ALICE)

    assert protocol is None and code == 1000 and end_code == 1000
    assert resumed == everything[3:] == await sse_events(keyed, run_id, "?after=2")
    assert at_the_end == everything[-1:]  # a finished run answers its terminal event again, as SSE does


async def test_another_principal_s_run_is_refused_like_a_missing_one(keyed: Gateway, sockets: str) -> None:
    run_id = await start_run(keyed, "mine")
    await sse_events(keyed, run_id)
    over_http = (await keyed.http.get(f"/v1/runs/{run_id}/events", headers=BOB)).json()["error"]

    refusals = [
        await read_socket(f"{sockets}/v1/runs/{run_id}/ws", subprotocols=[EVENTS_PROTOCOL, "bearer.bob-key"]),
        await read_socket(f"{sockets}/v1/runs/{run_id}/ws", additional_headers=BOB),
        await read_socket(f"{sockets}/v1/runs/no-such-run/ws", additional_headers=BOB),
    ]
    unkeyed, unkeyed_code, _ = await read_socket(f"{sockets}/v1/runs/{run_id}/ws", subprotocols=[EVENTS_PROTOCOL])
    wrong_key, wrong_code, _ = await read_socket(
        f"{sockets}/v1/runs/{run_id}/ws", subprotocols=[EVENTS_PROTOCOL, "bearer.mallory"]
    )

    for messages, code, _ in refusals:
        assert code == 4404 and len(messages) == 1
        assert messages[0]["error"]["code"] == "RUN_NOT_FOUND" and messages[0]["error"]["requestId"]
    assert {k: v for k, v in refusals[0][0][0]["error"].items() if k != "requestId"} == {
        k: v for k, v in over_http.items() if k != "requestId"
    }
    assert unkeyed_code == wrong_code == 4401
    assert unkeyed[0]["error"]["code"] == wrong_key[0]["error"]["code"] == "UNAUTHORIZED"


async def test_a_run_without_an_event_stream_is_refused_with_sse_s_code(keyed: Gateway, sockets: str) -> None:
    await sse_events(keyed, await start_run(keyed, "quiet"))

    messages, code, _ = await read_socket(f"{sockets}/v1/runs/session-alice-quiet/ws", additional_headers=ALICE)

    assert code == 4409 and messages[0]["error"]["code"] == "NO_EVENT_STREAM"


async def test_a_bad_resume_point_is_refused_as_sse_refuses_it(keyed: Gateway, sockets: str) -> None:
    run_id = await start_run(keyed, "bad")

    for after in ["abc", "-2", "1.5", str(2**53)]:
        over_http = await keyed.http.get(f"/v1/runs/{run_id}/events?after={after}", headers=ALICE)
        url = f"{sockets}/v1/runs/{run_id}/ws?after={after}"
        messages, code, _ = await read_socket(url, additional_headers=ALICE)

        assert over_http.status_code == 422 and code == 4422 and len(messages) == 1, after
        error, expected = messages[0]["error"], over_http.json()["error"]
        assert error["code"] == "INVALID_REQUEST" and error["requestId"]
        assert [(d["loc"], d["type"]) for d in error["details"]] == [(d["loc"], d["type"]) for d in expected["details"]]


async def test_a_stream_temporal_stops_answering_ends_with_stream_interrupted_to_resume_later(
    keyed: Gateway, sockets: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = await start_run(keyed, "away")
    await sse_events(keyed, run_id)
    monkeypatch.setattr(streaming, "RECONNECT_SECONDS", 0.5)

    async def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise RPCError("connection refused", RPCStatusCode.UNAVAILABLE, b"")

    monkeypatch.setattr(keyed.env.client.workflow_service, "query_workflow", unreachable)
    over_sse = parse_sse((await keyed.http.get(f"/v1/runs/{run_id}/events", headers=ALICE)).text)
    messages, code, _ = await read_socket(f"{sockets}/v1/runs/{run_id}/ws", additional_headers=ALICE)

    assert code == 1013 and len(messages) == 1 and [e.event for e in over_sse] == ["error"]
    error = messages[0]["error"]
    assert error["code"] == "STREAM_INTERRUPTED" and error["lastEventId"] == -1 and error["requestId"]
    assert {k: v for k, v in error.items() if k != "requestId"} == over_sse[0].data
