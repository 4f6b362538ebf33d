"""A run's numbers from the client's times and the simulator's log: its calls, their critical path, the first
streamed text against the model's first token, the lag of each streamed piece of prose; medians over a family's
runs (the pieces' lags pooled over them)."""

import itertools
import json
import math
import os
import re
import statistics
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from tests.bench.llm.client import TimedRun
from tests.bench.llm.critical_path import critical_path, spans
from tests.bench.report import percentile, ratio
from tests.simulator.server import LoggedCall, Simulator
from tests.simulator.text import tokens

LAYOUT_JOINS = re.compile(r"\. |: |：| · |\n")
"""What a JSON-answering agent's streamed layout puts between values (`activities.common.answer_text`, each
family's layouts): the first value of a piece, before it, is words the model wrote."""
PROSE_FAMILIES = frozenset({"writing"})
"""Families whose agents stream prose (the writing family's Writer): the streamed text lag and the piece lags are
measured on their first streamed prose call. The other families stream JSON answers, and a prose call of theirs
(a Supervisor's tool turn) is streamed only to heartbeat, never shown."""
LAYOUT_MARK = "- "
"""What a layout puts before a list's item: not the model's words."""


def run_calls(simulator: Simulator, run: TimedRun) -> list[LoggedCall]:
    """The simulator's log entries of a run that ran alone."""
    until = run.ended if run.ended is not None else time.monotonic()
    return [call for call in list(simulator.log) if run.posted <= call.started <= until]


def first_words(sample: str) -> str:
    """The beginning of a streamed text that the model wrote as it stands (before a layout's first join)."""
    return LAYOUT_JOINS.split(sample.lstrip().removeprefix(LAYOUT_MARK))[0].strip()[:12]


def written_at(call: LoggedCall, words: str) -> float | None:
    """When the model wrote the token that begins `words` in its answer (the first string value that starts with
    them, in a JSON answer); None when the call has no token times or not the words."""
    quoted = call.text.find(f'"{words}')
    char = quoted + 1 if quoted >= 0 else call.text.find(words)
    return token_written(call, char) if char >= 0 and call.token_times else None


def token_written(call: LoggedCall, char: int) -> float:
    """When the call wrote the token that holds character `char` of its text (the simulator's token times)."""
    written = tokens(call.text)
    ends = itertools.accumulate(len(token) for token in written)
    index = next((i for i, end in enumerate(ends) if end > char), len(written) - 1)
    return call.token_times[len(call.token_times) - len(written) + index]  # reasoning tokens come first


def text_call(calls: Sequence[LoggedCall], sample: str, seen: float) -> LoggedCall | None:
    """The call whose answer the first streamed text (`sample`, on the client at `seen`) came from: of the calls
    whose text holds its beginning (up to the first join of a streamed JSON layout, so an option's id), the last to
    write its first token before the client saw it (the simulator writes from a small pool of sentences, so an
    earlier call may hold the same words)."""
    head = first_words(sample)
    candidates = [c for c in calls if head and head in c.text and c.first_token is not None and c.first_token <= seen]
    return max(candidates, key=lambda c: c.first_token or 0.0, default=None)


def first_prose(calls: Sequence[LoggedCall]) -> LoggedCall | None:
    """The run's first streamed prose call: the text a person reads as it is written (the writing family's Writer)."""
    return next((c for c in calls if c.request.stream and c.kind == "prose" and c.first_token is not None), None)


def stream_lag(calls: Sequence[LoggedCall], run: TimedRun) -> float | None:
    """Milliseconds from the first token the model streamed of the run's first streamed prose call to the first
    piece of it on the client; None when the run has no such call or the client saw none of it."""
    prose = first_prose(calls)
    if prose is None or prose.first_token is None:
        return None
    seen = next(
        (t for t, text in run.texts if t >= prose.first_token and text.strip() and text.strip()[:12] in prose.text),
        None,
    )
    return (seen - prose.first_token) * 1000 if seen is not None else None


def piece_lags(calls: Sequence[LoggedCall], run: TimedRun) -> list[tuple[float, float]]:
    """For each piece of the run's first streamed prose call that reached the client, milliseconds from when the
    model wrote its first token, and its last, to when the piece arrived. The pieces from the call's first token
    on, joined, are its text (up to the first that is not: a restart); a piece's characters are placed on the
    call's tokens, whose write times the simulator logs."""
    prose = first_prose(calls)
    if prose is None or prose.first_token is None or not prose.token_times:
        return []
    lags: list[tuple[float, float]] = []
    offset = 0
    for seen, text in run.texts:
        if seen < prose.first_token or not text:
            continue
        if not prose.text.startswith(text, offset):
            break
        first, last = token_written(prose, offset), token_written(prose, offset + len(text) - 1)
        lags.append(((seen - first) * 1000, (seen - last) * 1000))
        offset += len(text)
    return lags


def model_seconds(calls: Sequence[LoggedCall]) -> float:
    """The simulator's time spent answering `calls` (those that finished), added up."""
    return sum(call.ended - call.started for call in calls if call.ended is not None)


def sequential_numbers(simulator: Simulator, run: TimedRun) -> dict[str, Any]:
    calls = run_calls(simulator, run)
    path = critical_path(spans(calls, run.posted, run.ended or time.monotonic()))
    numbers: dict[str, Any] = {
        "wall_s": run.wall_s,
        "critical_path_s": path,
        "ratio": ratio(run.wall_s, path),
        "calls": len(calls),
        "model_s": model_seconds(calls),
        "first_token_ms": None,
        "model_first_token_ms": None,
        "first_words_written_ms": None,
        "status": run.status,
        "error": run.error,
        "reported": run.reported,
        "timeline": timeline(calls, run.posted),
        "stream_lag_ms": stream_lag(calls, run) if run.family in PROSE_FAMILIES else None,
        "piece_lags_ms": piece_lags(calls, run) if run.family in PROSE_FAMILIES else [],
    }
    if run.first_text is not None:
        numbers["first_token_ms"] = (run.first_text - run.posted) * 1000
        source = text_call(calls, run.first_text_sample, run.first_text)
        if source is not None and source.first_token is not None:
            numbers["model_first_token_ms"] = (source.first_token - run.posted) * 1000
            words = written_at(source, first_words(run.first_text_sample))
            numbers["first_words_written_ms"] = (words - run.posted) * 1000 if words is not None else None
    return numbers


def median_of(samples: Sequence[dict[str, Any]], key: str) -> float | None:
    values = [s[key] for s in samples if s.get(key) is not None]
    return statistics.median(values) if values else None


def family_summary(samples: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the sequential runs, and every run's numbers."""
    keys = (
        "wall_s",
        "critical_path_s",
        "ratio",
        "calls",
        "model_s",
        "first_token_ms",
        "model_first_token_ms",
        "first_words_written_ms",
        "stream_lag_ms",
        "history_events",
        "content_signals",
        "writer_signals",
    )
    summary: dict[str, Any] = {key: median_of(samples, key) for key in keys}
    first, model_first = summary["first_token_ms"], summary["model_first_token_ms"]
    summary["first_token_after_model_ms"] = first - model_first if first and model_first else None
    words = summary["first_words_written_ms"]
    summary["first_token_after_its_words_ms"] = first - words if first and words else None
    pieces = [lag for s in samples for lag in s.get("piece_lags_ms", [])]
    summary["pieces"] = len(pieces)
    for name, index in (("piece_first_token_lag_ms", 0), ("piece_lag_ms", 1)):
        lags = [lag[index] for lag in pieces]
        summary[name] = {"p50": percentile(lags, 50), "p99": percentile(lags, 99)} if lags else None
    summary["errors"] = sum(s["error"] is not None for s in samples)
    summary["not_completed"] = sum(s["error"] is None and s["status"] != "completed" for s in samples)
    summary["runs"] = list(samples)
    return summary


def timeline(calls: Sequence[LoggedCall], posted: float) -> list[dict[str, Any]]:
    """A run's calls in arrival order, in seconds from its POST: what each asked for and when it ran."""
    return [
        {
            "number": c.number,
            "start_s": c.started - posted,
            "first_token_s": c.first_token - posted if c.first_token is not None else None,
            "end_s": c.ended - posted if c.ended is not None else None,
            "stream": c.request.stream,
            "kind": c.kind,
            "asks": _asks(c),
            "tokens": c.answer_tokens,
        }
        for c in sorted(calls, key=lambda c: c.started)
    ]


def _asks(call: LoggedCall) -> str:
    """What a call asked for: an image, its schema's title, its tools, or prose."""
    if call.kind == "image":
        return "image"
    return (call.request.schema or {}).get("title") or ",".join(t.name for t in call.request.tools) or "prose"


def marked_calls(calls: Sequence[LoggedCall], markers: Sequence[str]) -> tuple[list[list[LoggedCall]], int]:
    """Each marked run's calls, in the order of `markers`, and how many calls could not be told apart. A model
    call is the run's whose marker its request quotes. An image call quotes none (its prompt is what the run's
    model wrote for it: an image plan, or a `generate_image` call's own prompt), so it is the run whose model
    answered with that prompt last before the image was asked for: the simulator writes from a small pool of
    sentences, so several runs' answers may hold a prompt, and the call that asked for this image (the tool call
    its activity answers) ended just before it started."""
    by_run: list[list[LoggedCall]] = [[] for _ in markers]
    unmarked = 0
    drawn: list[LoggedCall] = []
    for call in calls:
        if call.protocol == "openai_images":
            drawn.append(call)
            continue
        body = json.dumps(call.body, ensure_ascii=False)
        owners = [i for i, marker in enumerate(markers) if marker in body]
        if len(owners) == 1:
            by_run[owners[0]].append(call)
        else:
            unmarked += 1
    answers = [(call.ended, i, _answered(call)) for i, run in enumerate(by_run) for call in run if call.ended]
    for image in drawn:
        prompt = json.dumps(image.request.last_user_text, ensure_ascii=False)[1:-1]
        wrote = [(ended, i) for ended, i, text in answers if prompt and ended <= image.started and prompt in text]
        if wrote:
            by_run[max(wrote)[1]].append(image)
        else:
            unmarked += 1
    return by_run, unmarked


def _answered(call: LoggedCall) -> str:
    """What a model call answered, as JSON text: its JSON value or its text, and its tool calls' arguments."""
    written = json.dumps(call.value if call.value is not None else call.text, ensure_ascii=False)
    return written + json.dumps(call.tool_calls, ensure_ascii=False)


def per_run_paths(runs: Sequence[TimedRun], calls_by_run: Sequence[Sequence[LoggedCall]]) -> dict[str, Any]:
    """Runs at once told apart (`marked_calls`): each run's own critical path, its calls, and its wall time over
    it, so a phase's ideal is its own runs' (they may make more calls than the sequential run did) and its slow
    runs show whether they waited on their model or on the machine."""
    paths = [
        critical_path(spans(calls, run.posted, run.ended or time.monotonic()))
        for run, calls in zip(runs, calls_by_run, strict=True)
    ]
    ratios = [ratio(run.wall_s, path) for run, path in zip(runs, paths, strict=True) if run.ok and path]
    counts = [len(calls) for calls in calls_by_run]
    return {
        "paths_s": paths,
        "critical_path_s": {"p50": percentile(paths, 50), "max": max(paths, default=math.nan)},
        "calls": {"min": min(counts, default=0), "max": max(counts, default=0)},
        "ratio": {"p50": percentile(ratios, 50), "p99": percentile(ratios, 99)},
    }


def concurrency_numbers(
    runs: Sequence[TimedRun],
    wall_s: float,
    critical_s: float | None,
    cpu_s: Mapping[str, float],
    worker_peak_rss: int,
    per_run: Mapping[str, Any] | None = None,
    model_s: float | None = None,
    cores: int = os.cpu_count() or 1,
) -> dict[str, Any]:
    """One phase of n runs at once: throughput (completed runs per second of the phase) against the model-bound
    ideal, errors (no terminal event, or an HTTP error), runs that ended but did not complete, wall time
    percentiles of the runs that ended, the worker's peak memory, and the CPU seconds of each process group
    (`cpu_s`: the worker, and the others sharing the machine's cores, this benchmark's process, which runs the
    model simulator and the clients, among them), the worker's also per run. The ideal: with the phase's runs told
    apart (`per_run`, `per_run_paths`), n over the longest of their own critical paths (all start at once, and
    the phase lasts until the last ends); otherwise n over the family's sequential critical path (`critical_s`).
    `busy`: the share of the machine's `cores` the processes measured (`cpu_s`) used over the phase; near 1, the
    runs waited on the machine, not on their model. `degraded`: completed runs that reported an `error` event (they
    went on without a part: `TimedRun.reported`), with the codes reported most. `model_s_per_run`: the model
    seconds of the phase's calls per run (`model_s` / n); near the sequential runs' `model_s`, the simulator kept
    its pace, and what the runs took beyond it was spent between their calls. `cores_for_ideal`: the cores the
    measured processes would keep busy at the ideal throughput, at this phase's CPU per run (more than `cores`: the
    machine cannot reach the ideal without less CPU per run)."""
    n = len(runs)
    walls = [r.wall_s for r in runs if r.ok]
    per_s = sum(r.completed for r in runs) / wall_s
    longest = per_run["critical_path_s"]["max"] if per_run is not None else None
    basis = longest if longest else critical_s
    ideal = n / basis if basis else None
    return {
        "runs": n,
        "runs_per_s": per_s,
        "ideal_runs_per_s": ideal,
        "ideal_from": "its runs' own critical paths" if longest else "the sequential runs' critical path",
        "of_ideal": ratio(per_s, ideal) if ideal else None,
        "errors": sum(not r.ok for r in runs),
        "not_completed": sum(r.ok and not r.completed for r in runs),
        "degraded": sum(r.completed and bool(r.reported) for r in runs),
        "reported_codes": dict(Counter(code for r in runs for code in r.reported).most_common(3)),
        "model_s_per_run": model_s / n if model_s is not None and n else None,
        "p50_s": percentile(walls, 50),
        "p99_s": percentile(walls, 99),
        "phase_s": wall_s,
        "per_run": dict(per_run) if per_run is not None else None,
        "worker_cpu_s": cpu_s["worker"],
        "worker_cpu_s_per_run": cpu_s["worker"] / n if n else None,
        "cpu_s": dict(cpu_s),
        "busy": sum(cpu_s.values()) / (wall_s * cores),
        "cores_for_ideal": sum(cpu_s.values()) / n * ideal if ideal and n else None,
        "worker_peak_rss_mb": worker_peak_rss / 2**20,
        "error_examples": sorted({r.error or "" for r in runs if not r.ok})[:3],
    }
