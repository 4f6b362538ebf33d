"""The app builder's code on screen while the model writes it: each `write_file` call's content reaches the run's
readers as live text (`content_live`, under the task's name, after a line naming the file), and none of it goes
through the run's history (no `content` event carries a file). The gateway runs on a socket with the workers
posting live text to it (tests.api.test_live_text); the model is the simulator writing a real todo app."""

import re
from dataclasses import replace

import httpx
import pytest

from tests.api.app_builder.project_author import TODO_APP, project_files, todo_then_dark_mode
from tests.api.conftest import Gateway
from tests.api.test_live_text import live  # noqa: F401 (the fixture)
from tests.simulator.quirks import Quirk, QuirkRule
from tests.simulator.server import Simulator
from tests.sse import SseEvent, sse_stream
from tests.workflows.harness import time_skipping

TODO = "做一个待办事项应用：可以添加、完成和删除待办"
HEADER = re.compile(r"── (\S+) ──\n")


def written_files(pieces: list[dict[str, object]]) -> dict[str, str]:
    """What the live pieces showed, by file: each call's text (pieces in order, by offset) cut at its headers."""
    texts: dict[tuple[object, object, object], str] = {}
    for piece in pieces:
        key = (piece["call"], piece["attempt"], piece["round"])
        text = texts.get(key, "")
        if piece["offset"] == len(text):
            texts[key] = text + str(piece["text"])
    files: dict[str, str] = {}
    for text in texts.values():
        parts = HEADER.split(text)
        for path, code in zip(parts[1::2], parts[2::2], strict=True):
            files[path] = code.removesuffix("\n\n")
    return files


async def build_reading_live(gateway: Gateway, base: str) -> tuple[str, list[SseEvent]]:
    """An app run for the todo request, its events read over the socket as they come (live pieces among them); its
    retry gaps pass on the time-skipping server's clock."""
    events: list[SseEvent] = []
    async with (
        time_skipping(gateway.env.client),
        httpx.AsyncClient(base_url=base, timeout=120) as http,
        http.stream("POST", "/v1/apps/runs", json={"message": TODO}) as response,
    ):
        assert response.status_code == 200
        async for event in sse_stream(response):
            events.append(event)
    return response.headers["x-run-id"], events


def code_pieces(events: list[SseEvent]) -> list[dict[str, object]]:
    return [e.data for e in events if e.event == "content_live" and " · " in e.data["agent"]]


async def test_the_code_a_model_writes_streams_live_and_stays_out_of_the_history(
    live: tuple[Gateway, str],  # noqa: F811
    simulator: Simulator,
) -> None:
    gateway, base = live
    simulator.style = replace(simulator.style, tool_author=todo_then_dark_mode())
    run_id, events = await build_reading_live(gateway, base)

    assert events[-1].event == "done"
    pieces = [e.data for e in events if e.event == "content_live"]
    shown = written_files(code_pieces(events))
    expected = project_files(TODO_APP)
    assert shown, "no file's code was streamed"
    assert set(shown) <= set(expected), set(shown) - set(expected)
    for path, code in shown.items():
        assert code == expected[path], path
    agents = {p["agent"] for p in pieces if " · " in p["agent"]}
    assert all(re.fullmatch(r".+ · [a-z]+-agent", agent) for agent in agents), agents  # "<task id> · <agent>"

    recorded = "".join(e.data["data"].get("text", "") for e in events if e.event == "content")
    assert not [path for path, code in shown.items() if code[:60] in recorded], "a file's code in the history"
    state = (await gateway.http.get(f"/v1/runs/{run_id}")).json()
    assert state["state"]["success"], [e.data for e in events if e.event in ("quality_result", "error")]


@pytest.mark.parametrize("quirk", [Quirk.CUT_STREAM, Quirk.THINK, Quirk.REASONING])
async def test_with_a_quirk_the_live_code_is_only_ever_the_model_s_code(
    live: tuple[Gateway, str],  # noqa: F811
    simulator: Simulator,
    quirk: Quirk,
) -> None:
    """A stream cut mid-file (the attempt is retried), reasoning in the content before the answer or sent apart:
    what a reader saw of each file is the start of the file the model wrote, never reasoning or JSON, and the
    terminal event is still the stream's last."""
    gateway, base = live
    simulator.style = replace(simulator.style, tool_author=todo_then_dark_mode())
    simulator.quirks = [QuirkRule(quirk, every=3)]
    _, events = await build_reading_live(gateway, base)

    assert events[-1].event == "done"
    assert any(call.quirk == quirk for call in simulator.log)
    expected = project_files(TODO_APP)
    shown = written_files(code_pieces(events))
    assert shown, "no file's code was streamed"
    for path, code in shown.items():
        assert path in expected and expected[path].startswith(code), path
