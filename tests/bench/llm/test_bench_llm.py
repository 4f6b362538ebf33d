"""The bench-llm's own computations on hand-made logs: the critical path, a run's numbers and the report's shape,
the LangGraph baseline's steps. Behaviour only: no timing is asserted."""

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.bench.llm.__main__ import parse_args, table
from tests.bench.llm.baseline import steps
from tests.bench.llm.client import ShownText, TimedRun, timed_run
from tests.bench.llm.critical_path import Span, critical_path, spans
from tests.bench.llm.families import marker
from tests.bench.llm.numbers import (
    concurrency_numbers,
    family_summary,
    marked_calls,
    per_run_paths,
    sequential_numbers,
)
from tests.bench.report import write_json
from tests.simulator.answers import Kind
from tests.simulator.requests import parse_request
from tests.simulator.server import LoggedCall, Simulator
from tests.simulator.text import tokens


def call(
    number: int,
    start: float,
    end: float | None,
    text: str = "",
    first: float | None = None,
    kind: Kind = "prose",
    token_times: list[float] | None = None,
    asked: str = "hi",
) -> LoggedCall:
    body = {"model": "m", "messages": [{"role": "user", "content": asked}], "stream": True}
    return LoggedCall(
        number=number,
        protocol="openai_chat",
        request=parse_request("openai_chat", body),
        quirk=None,
        kind=kind,
        status=200,
        text=text,
        value=None,
        tool_calls=[],
        finish="stop",
        answer_tokens=10,
        answer_chars=len(text),
        generation_seconds=0.0,
        body=body,
        started=start,
        first_token=first if first is not None else start,
        ended=end,
        token_times=token_times or [],
    )


def test_the_critical_path_is_the_longest_chain_of_calls_that_waited_for_each_other() -> None:
    a, b, c, d, e = Span(0, 1), Span(0.5, 2), Span(2, 3), Span(1.2, 1.8), Span(3.5, 4)
    # a and b overlap, so no chain holds both; d waited for a; c waited for b and d; e waited for everything.
    # chains: a d c e = 1 + 0.6 + 1 + 0.5 = 3.1 beats b c e = 1.5 + 1 + 0.5 = 3.0
    assert critical_path([e, c, b, d, a]) == pytest.approx(3.1)
    assert critical_path([Span(0, 1), Span(1, 2)]) == pytest.approx(2), "one ending as the next starts: a chain"
    assert critical_path([Span(0, 2), Span(0, 2), Span(1, 3)]) == pytest.approx(2), "side by side: the longest"
    assert critical_path([]) == 0


def test_a_run_s_spans_are_its_finished_calls_admitted_while_it_ran() -> None:
    log = [call(1, 0.5, 1.0), call(2, 1.5, None), call(3, 9.0, 9.5), call(4, 2.0, 3.0)]
    assert spans(log, 0.0, 5.0) == [Span(0.5, 1.0), Span(2.0, 3.0)]


def test_runs_at_once_are_told_apart_by_their_markers_and_the_ideal_is_their_own() -> None:
    first, second = marker("c2-1"), marker("c2-10")  # neither marker is a part of the other
    log = [
        call(1, 0.0, 2.0, asked=f"话题{first}"),
        call(2, 0.1, 1.0, asked=f"话题{second}"),
        call(3, 2.0, 5.0, asked=f"话题{first}"),
        call(4, 1.0, 2.0, asked=f"话题{second}"),
        call(5, 1.0, 2.0, asked="no marker"),
    ]
    by_run, unmarked = marked_calls(log, [first, second])
    assert [[c.number for c in calls] for calls in by_run] == [[1, 3], [2, 4]] and unmarked == 1

    runs = [TimedRun("content", posted=0.0, ended=6.0, status="completed")]
    runs.append(TimedRun("content", posted=0.0, ended=4.0, status="completed"))
    per_run = per_run_paths(runs, by_run)
    assert per_run["paths_s"] == [pytest.approx(5.0), pytest.approx(1.9)]
    assert per_run["calls"] == {"min": 2, "max": 2}
    assert per_run["ratio"]["p50"] == pytest.approx((6 / 5 + 4 / 1.9) / 2)

    phase = concurrency_numbers(runs, 6.0, 1.0, {"worker": 1.0, "bench": 0.1}, 0, per_run)
    assert phase["ideal_runs_per_s"] == pytest.approx(2 / 5.0), "the longest of the phase's own paths, not 1 s"
    assert phase["ideal_from"] == "its runs' own critical paths"
    assert concurrency_numbers(runs, 6.0, 1.0, {"worker": 1.0, "bench": 0.1}, 0)["ideal_runs_per_s"] == 2.0


def image_call(number: int, start: float, end: float, prompt: str) -> LoggedCall:
    body = {"model": "gpt-image-1", "prompt": prompt, "size": "1024x1024", "n": 1}
    drawn = call(number, start, end, kind="image")
    return replace(drawn, protocol="openai_images", request=parse_request("openai_images", body), body=body)


def test_an_image_call_is_the_run_s_whose_model_wrote_its_prompt_last_before_it() -> None:
    first, second = marker("c2-1"), marker("c2-2")
    plan = replace(call(1, 0.0, 1.0, asked=f"话题{first}", kind="json"), value={"plans": [{"prompt": '雨夜 "霓虹"'}]})
    tool = replace(call(2, 0.0, 1.5, asked=f"话题{second}"), tool_calls=[("generate_image", {"prompt": "晨光咖啡杯"})])
    asked = replace(call(3, 0.0, 1.9, asked=f"话题{first}"), tool_calls=[("generate_image", {"prompt": "晨光咖啡杯"})])
    late = replace(call(4, 0.0, 9.0, asked=f"话题{first}"), text="后来才写出的提示词")
    log = [plan, tool, asked, late, image_call(5, 2.0, 8.0, '雨夜 "霓虹"'), image_call(6, 2.0, 8.0, "晨光咖啡杯")]
    log.append(image_call(7, 2.0, 8.0, "后来才写出的提示词"))

    by_run, unmarked = marked_calls(log, [first, second])

    assert [[c.number for c in calls] for calls in by_run] == [[1, 3, 4, 5, 6], [2]], "both wrote it: the last"
    assert unmarked == 1, "a prompt written only after the image was asked for"


def numbers_of_a_hand_made_run() -> dict[str, Any]:
    simulator = Simulator()
    simulator.log += [
        call(1, 10.1, 11.0, "一、雨夜重逢", first=10.4, kind="json"),
        call(2, 11.2, 14.0, "一、雨夜重逢，林舟推开门", first=11.8, token_times=[11.8 + 0.02 * i for i in range(12)]),
        call(3, 11.3, 12.0, '{"ok": true}', kind="json"),
        call(4, 30.0, 31.0),
    ]
    run = TimedRun("writing", posted=10.0, ended=14.5, first_text=11.1, first_text_sample="一、雨夜")
    run.texts = [(11.1, "一、雨夜"), (11.95, "一、雨夜重逢，林"), (12.5, "舟推开门")]
    run.status = "completed"
    return sequential_numbers(simulator, run)


def test_a_run_s_numbers_come_from_its_calls_and_the_client_s_times() -> None:
    numbers = numbers_of_a_hand_made_run()

    assert numbers["calls"] == 3 and numbers["wall_s"] == pytest.approx(4.5)
    assert numbers["critical_path_s"] == pytest.approx(0.9 + 2.8)
    assert numbers["ratio"] == pytest.approx(4.5 / 3.7)
    assert numbers["first_token_ms"] == pytest.approx(1100)
    assert numbers["model_first_token_ms"] == pytest.approx(400), "call 2 has the words too, written after"
    assert [c["number"] for c in numbers["timeline"]] == [1, 2, 3]
    assert numbers["stream_lag_ms"] == pytest.approx(150), "call 2, the first streamed prose, seen 0.15 s later"
    first_piece, second_piece = numbers["piece_lags_ms"]
    assert first_piece == pytest.approx((150, 10)), "tokens 0-7 of call 2, written at 11.80-11.94, seen at 11.95"
    assert second_piece == pytest.approx((540, 480)), "tokens 8-11, written at 11.96-12.02, seen at 12.5"


def test_a_piece_that_is_not_the_prose_s_next_text_ends_its_lags() -> None:
    simulator = Simulator()
    simulator.log.append(call(1, 0.0, 1.0, "甲乙丙", first=0.5, token_times=[0.5, 0.6, 0.7]))
    run = TimedRun("writing", posted=0.0, ended=1.0, status="completed")
    run.texts = [(0.55, "甲"), (0.9, "X"), (0.95, "乙丙")]

    assert sequential_numbers(simulator, run)["piece_lags_ms"] == [pytest.approx((50, 50))]


def test_a_run_that_completed_without_a_part_is_counted_as_degraded_not_as_clean() -> None:
    clean = TimedRun("writing", posted=0.0, ended=2.0, status="completed")
    degraded = TimedRun("writing", posted=0.0, ended=2.0, status="completed", reported=["PREPROCESSING_TASK_FAILED"])
    failed = TimedRun("writing", posted=0.0, ended=2.0, status="failed", reported=["AGENT_FAILED"])

    phase = concurrency_numbers([clean, degraded, failed], 4.0, 2.0, {"worker": 1.0, "bench": 0.1}, 0, model_s=9.0)

    assert (phase["errors"], phase["not_completed"], phase["degraded"]) == (0, 1, 1)
    assert phase["reported_codes"] == {"PREPROCESSING_TASK_FAILED": 1, "AGENT_FAILED": 1}
    assert phase["model_s_per_run"] == pytest.approx(3.0), "9 model seconds over 3 runs"


async def test_the_client_keeps_the_codes_of_the_errors_a_run_reported_on_its_way() -> None:
    def event(seq: int, kind: str, data: dict[str, Any]) -> str:
        return f"id: {seq}\nevent: {kind}\ndata: {json.dumps({'type': kind, 'data': data})}\n\n"

    body = event(0, "error", {"code": "PREPROCESSING_TASK_FAILED", "message": "plot_loops"})
    body += event(1, "done", {"status": "completed"})
    gateway = httpx.MockTransport(lambda request: httpx.Response(200, text=body, headers={"x-run-id": "writing-1"}))

    async with httpx.AsyncClient(transport=gateway, base_url="http://gateway") as http:
        run = await timed_run(http, "writing", "/v1/writing/projects/p/chat", {"text": "写"}, None)

    assert run.completed and run.reported == ["PREPROCESSING_TASK_FAILED"]


def test_the_report_has_the_fields_the_issue_names_and_renders(tmp_path: Path) -> None:
    summary = family_summary([numbers_of_a_hand_made_run()])
    ok = TimedRun("writing", posted=0.0, ended=2.0, status="completed")
    lost = TimedRun("writing", posted=0.0, error="the stream closed before its terminal event")
    phase = concurrency_numbers([ok, ok, lost], 4.0, 2.0, {"worker": 1.5, "bench": 0.6}, 300 * 2**20, cores=2)
    assert (phase["runs_per_s"], phase["ideal_runs_per_s"], phase["errors"]) == (0.5, 1.5, 1)
    assert phase["p99_s"] == pytest.approx(2.0) and phase["worker_peak_rss_mb"] == pytest.approx(300)
    assert phase["worker_cpu_s_per_run"] == pytest.approx(0.5) and phase["cpu_s"]["bench"] == pytest.approx(0.6)
    assert phase["busy"] == pytest.approx(2.1 / 8), "2.1 CPU seconds of the 4 s × 2 cores"
    assert phase["cores_for_ideal"] == pytest.approx(2.1 / 3 * 1.5), "0.7 CPU s per run at 1.5 runs/s"
    profile = {
        "name": "bench",
        "first_token_s": 0.6,
        "tokens_per_second": 40.0,
        "time_scale": 0.25,
        "concurrency_time_scale": 1.0,
    }
    report = {
        "profile": profile,
        "runs": 1,
        "machine": {"load_average_at_end": 0.5},
        "families": {"writing": summary},
        "langgraph": {"writing": summary},
        "concurrency": {"10": {"writing": phase}, "50": {"writing": phase}},
    }
    write_json(report, tmp_path / "llm-report.json")

    written = json.loads((tmp_path / "llm-report.json").read_text())
    family = written["families"]["writing"]
    for key in ("wall_s", "critical_path_s", "ratio", "calls", "first_token_ms", "model_first_token_ms"):
        assert isinstance(family[key], int | float), key
    assert family["piece_lag_ms"]["p50"] == pytest.approx(245) and family["pieces"] == 2
    for n in ("10", "50"):
        assert set(written["concurrency"][n]["writing"]) >= {"runs_per_s", "ideal_runs_per_s", "errors", "p99_s"}
    rendered = table(report)
    assert "| writing (LangGraph) |" in rendered and "| 50 | writing |" in rendered
    assert "| sequential run | n/a | n/a |" in rendered and "| 1.5 | 0.50 | 0.6 | 26 % | 1.1 | 300 |" in rendered
    assert "time scale 0.25 (runs at once: 1)" in rendered
    assert "| runs at once |" not in table(report | {"concurrency": {}}), "no phases, no empty table"
    assert "images from the local renderer" in rendered, "a report from before the image API drew locally"
    drawn = report | {"profile": profile | {"images": "api", "image_seconds": 6.0}}
    assert "images from the simulator's API in 6 s" in table(drawn)


def test_the_baseline_s_steps_put_calls_that_overlapped_side_by_side() -> None:
    log = [call(3, 2.0, 3.0), call(1, 0.0, 1.0), call(2, 0.5, 1.5), call(4, 2.5, 4.0), call(5, 4.0, 5.0)]
    assert [[c.number for c in step] for step in steps(log)] == [[1, 2], [3, 4], [5]]


def json_call(number: int, answer: str) -> LoggedCall:
    """A JSON answer admitted at 0.95 s whose tokens were written from 1 s on, one every 10 ms."""
    token_times = [1.0 + i / 100 for i in range(len(tokens(answer)))]
    return call(number, 0.95, 2.0, answer, first=1.0, kind="json", token_times=token_times)


def test_the_first_words_of_a_json_answer_are_timed_by_the_token_that_began_them() -> None:
    answer = json.dumps({"options": [{"id": "A", "title": "怀表"}]}, indent=2)  # "A" is its 13th token
    simulator = Simulator()
    simulator.log.append(json_call(1, answer))
    run = TimedRun("writing", posted=0.9, ended=2.0, first_text=1.2, first_text_sample="A. ", status="completed")
    run.texts = [(1.2, "A. ")]

    numbers = sequential_numbers(simulator, run)

    assert numbers["model_first_token_ms"] == pytest.approx(100)
    assert numbers["first_words_written_ms"] == pytest.approx(220), "the id's token, written 0.12 s after the brace"


def test_a_content_runs_first_list_item_is_timed_by_its_words_and_its_prose_turns_are_not_piece_lags() -> None:
    answer = json.dumps({"brief": {"keyMessages": ["每天一杯"]}}, ensure_ascii=False)
    simulator = Simulator()
    simulator.log.append(call(1, 0.1, 0.9, "先调用工具。", first=0.2, token_times=[0.2, 0.3]))  # a Supervisor turn
    simulator.log.append(json_call(2, answer))
    run = TimedRun(
        "content", posted=0.0, ended=2.0, first_text=1.2, first_text_sample="- 每天一杯\n", status="completed"
    )
    run.texts = [(1.2, "- 每天一杯\n")]

    numbers = sequential_numbers(simulator, run)

    assert numbers["model_first_token_ms"] == pytest.approx(1000), "the list mark is the layout's, not the model's"
    assert numbers["first_words_written_ms"] is not None and numbers["first_words_written_ms"] > 1000
    assert numbers["stream_lag_ms"] is None and numbers["piece_lags_ms"] == []


def test_families_are_named_with_spaces_or_commas_and_an_unknown_one_is_refused() -> None:
    assert parse_args(["--families", "content,app"]).families == ["content", "app"]
    assert parse_args(["--families", "content", "app"]).families == ["content", "app"]
    assert parse_args([]).images == "api" and parse_args(["--images", "local"]).images == "local"
    with pytest.raises(SystemExit):
        parse_args(["--families", "contents"])


def live(text: str, offset: int, *, call: str = "1", attempt: int = 1) -> dict[str, Any]:
    return {"agent": "writer", "call": call, "attempt": attempt, "round": 0, "offset": offset, "text": text}


def test_the_client_shows_live_text_ahead_of_its_record_and_the_record_when_they_part() -> None:
    shown = ShownText()

    assert shown.add("content_live", live("雨夜", 0)) == ("", "雨夜"), "before any record: the live text"
    assert shown.add("content", {"agent": "writer", "text": "雨", "attempt": 1}) == ("雨夜", "雨夜")
    assert shown.add("content_live", live("，林舟", 2)) == ("雨夜", "雨夜，林舟")
    assert shown.add("content_live", live("推门", 9)) == ("雨夜，林舟", "雨夜，林舟"), "a gap: dropped"
    retried = {"agent": "writer", "text": "清晨", "attempt": 2, "restart": True}
    assert shown.add("content", retried) == ("雨夜，林舟", "清晨"), "a restart voids the live text of attempt 1"
    assert shown.add("content_live", live("清晨，苏念", 0, attempt=2)) == ("清晨", "清晨，苏念")
    void = {"agent": "writer", "text": "", "attempt": 1, "restart": True}
    assert shown.add("content", void) == ("清晨，苏念", ""), "a discarded call shows nothing, live or not"
    assert shown.add("progress", {"agent": "writer"}) is None
