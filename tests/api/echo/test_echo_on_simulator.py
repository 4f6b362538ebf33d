"""The echo family end to end over HTTP with the model simulator as its model (tests/simulator): a realistic
latency profile at a time scale, both protocols, and the quirks a real model shows — the run ends with the
simulator's answer, or with the degrade event and the offline reply, never silently."""

import logging
import time

import pytest

from tests.api.conftest import Gateway
from tests.api.echo.test_echo_over_http import answer_and_read
from tests.api.test_runs_on_a_dev_server import start
from tests.simulator.quirks import Quirk, QuirkRule
from tests.simulator.server import Simulator
from tests.workflows.streaming import shown_text

TIME_SCALE = 0.25
"""The realistic profile 4× faster: a reply of about 40 tokens takes about 0.8 s instead of 2.5 s."""


pytestmark = pytest.mark.parametrize("simulated", ["openai_chat", "anthropic"], indirect=True)


def model_reply(simulator: Simulator) -> str:
    """The reply in the simulator's last answer."""
    reply: str = simulator.log[-1].value["reply"]
    return reply


async def test_an_echo_run_replies_with_the_simulated_model_s_answer_streamed_as_it_is_written(
    simulated: Gateway, simulator: Simulator
) -> None:
    started = time.monotonic()
    run_id = await start(simulated, "EchoWorkflow", {"text": "今天天气不错，我们去西湖走走吧"})

    streamed = await answer_and_read(simulated, run_id, "keep", text=True)

    [call] = simulator.log
    assert call.request.schema is not None and call.kind == "json" and call.generation_seconds > 0.4
    pieces = [event.data["data"] for event in streamed[: [e.event for e in streamed].index("reply_ready")]]
    assert len(pieces) > 1 and {piece["agent"] for piece in pieces} == {"reply"}, "the reply as it was written"
    assert "".join(piece["text"] for piece in pieces) == model_reply(simulator), "its text alone, no braces"
    events = [event for event in streamed if event.event != "content"]
    assert events[0].event == "reply_ready" and events[0].data["data"] == {
        "text": model_reply(simulator),
        "offline": False,
    }
    assert "degraded" not in {e.event for e in events} and events[-1].event == "done"
    assert time.monotonic() - started >= call.generation_seconds


@pytest.mark.parametrize(
    "quirk",
    [
        Quirk.FENCE,
        Quirk.PROSE,
        Quirk.PROSE_BRACES,
        Quirk.THINK,
        Quirk.TRAILING_COMMA,
        Quirk.REASONING,
        Quirk.MISSING_FIELD,
        Quirk.RATE_LIMIT,
        Quirk.SERVER_ERROR,
        Quirk.CUT_STREAM,
    ],
)
async def test_a_quirk_on_the_first_answer_still_ends_with_the_model_s_reply(
    simulated: Gateway, simulator: Simulator, quirk: Quirk
) -> None:
    """Read as it is, or after the client's repair round, or after Temporal's retry (a 429, a 500, a cut body)."""
    simulator.quirks = [QuirkRule(quirk, first=1)]
    run_id = await start(simulated, "EchoWorkflow", {"text": "今天天气不错"})

    events = await answer_and_read(simulated, run_id, "keep")

    assert events[0].event == "reply_ready" and events[0].data["data"] == {
        "text": model_reply(simulator),
        "offline": False,
    }
    assert simulator.log[0].quirk == quirk and len(simulator.log) == (
        1
        if quirk in {Quirk.FENCE, Quirk.PROSE, Quirk.PROSE_BRACES, Quirk.THINK, Quirk.TRAILING_COMMA, Quirk.REASONING}
        else 2
    )


async def test_a_model_that_thinks_aloud_still_gets_its_reply_used(simulated: Gateway, simulator: Simulator) -> None:
    simulator.quirks = [QuirkRule(Quirk.THINK)]
    run_id = await start(simulated, "EchoWorkflow", {"text": "今天天气不错"})

    events = await answer_and_read(simulated, run_id, "keep")

    assert events[0].event == "reply_ready" and events[0].data["data"] == {
        "text": model_reply(simulator),
        "offline": False,
    }


async def test_a_model_whose_answers_are_always_cut_short_degrades_and_says_so(
    simulated: Gateway, simulator: Simulator
) -> None:
    simulator.quirks = [QuirkRule(Quirk.TRUNCATE)]
    run_id = await start(simulated, "EchoWorkflow", {"text": "今天天气不错"})

    streamed = await answer_and_read(simulated, run_id, "keep", text=True)

    pieces = [event.data["data"] for event in streamed if event.event == "content"]
    assert pieces and pieces[0]["text"], "the cut reply showed while it was written"
    assert shown_text(pieces) == "", "and is void once the model failed for good (an empty restart)"
    events = [event for event in streamed if event.event != "content"]
    assert [e.event for e in events[:2]] == ["degraded", "reply_ready"]
    assert events[1].data["data"] == {"text": "（离线回声）今天天气不错", "offline": True}
    assert [(call.quirk, call.finish) for call in simulator.log] == [(Quirk.TRUNCATE, "length")], "no repair round"


async def test_a_rate_limited_answer_is_one_log_line_not_a_traceback(
    simulated: Gateway, simulator: Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    """The worker's log after a 429 that Temporal retries: one line with the status, no SDK traceback."""
    simulator.quirks = [QuirkRule(Quirk.RATE_LIMIT, first=1)]
    with caplog.at_level(logging.INFO, logger="temporalio"):
        run_id = await start(simulated, "EchoWorkflow", {"text": "今天天气不错"})
        events = await answer_and_read(simulated, run_id, "keep")

    assert events[0].event == "reply_ready" and [call.status for call in simulator.log] == [429, 200]
    noted = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("temporalio")]
    assert [r.exc_info for r in noted] == [None] and "429" in noted[0].getMessage()
