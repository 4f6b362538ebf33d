"""A run's numbers from the client's times and the simulator's log: its calls, their critical path, the first
streamed text against the model's first token; medians over a family's runs."""

import statistics
import time
from collections.abc import Sequence
from typing import Any

from tests.bench.llm.client import TimedRun
from tests.bench.llm.critical_path import critical_path, spans
from tests.bench.report import percentile, ratio
from tests.simulator.server import LoggedCall, Simulator


def run_calls(simulator: Simulator, run: TimedRun) -> list[LoggedCall]:
    """The simulator's log entries of a run that ran alone."""
    until = run.ended if run.ended is not None else time.monotonic()
    return [call for call in list(simulator.log) if run.posted <= call.started <= until]


def text_call(calls: Sequence[LoggedCall], sample: str, seen: float) -> LoggedCall | None:
    """The call whose answer the first streamed text (`sample`, on the client at `seen`) came from: of the calls
    whose text holds its beginning, the last to write its first token before the client saw it (the simulator
    writes from a small pool of sentences, so an earlier call may hold the same words)."""
    head = sample.strip()[:12]
    candidates = [c for c in calls if head and head in c.text and c.first_token is not None and c.first_token <= seen]
    return max(candidates, key=lambda c: c.first_token or 0.0, default=None)


def stream_lag(calls: Sequence[LoggedCall], run: TimedRun) -> float | None:
    """Milliseconds from the first token the model streamed of the run's first streamed prose call (the text a
    person reads as it is written: the writing family's Writer) to the first piece of it on the client; None when
    the run has no such call or the client saw none of it."""
    prose = next((c for c in calls if c.request.stream and c.kind == "prose" and c.first_token is not None), None)
    if prose is None or prose.first_token is None:
        return None
    seen = next(
        (t for t, text in run.texts if t >= prose.first_token and text.strip() and text.strip()[:12] in prose.text),
        None,
    )
    return (seen - prose.first_token) * 1000 if seen is not None else None


def sequential_numbers(simulator: Simulator, run: TimedRun) -> dict[str, Any]:
    calls = run_calls(simulator, run)
    path = critical_path(spans(calls, run.posted, run.ended or time.monotonic()))
    numbers: dict[str, Any] = {
        "wall_s": run.wall_s,
        "critical_path_s": path,
        "ratio": ratio(run.wall_s, path),
        "calls": len(calls),
        "model_s": sum(c.ended - c.started for c in calls if c.ended is not None),
        "first_token_ms": None,
        "model_first_token_ms": None,
        "status": run.status,
        "error": run.error,
        "timeline": timeline(calls, run.posted),
        "stream_lag_ms": stream_lag(calls, run),
    }
    if run.first_text is not None:
        numbers["first_token_ms"] = (run.first_text - run.posted) * 1000
        source = text_call(calls, run.first_text_sample, run.first_text)
        if source is not None and source.first_token is not None:
            numbers["model_first_token_ms"] = (source.first_token - run.posted) * 1000
    return numbers


def median_of(samples: Sequence[dict[str, Any]], key: str) -> float | None:
    values = [s[key] for s in samples if s[key] is not None]
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
        "stream_lag_ms",
    )
    summary: dict[str, Any] = {key: median_of(samples, key) for key in keys}
    first, model_first = summary["first_token_ms"], summary["model_first_token_ms"]
    summary["first_token_after_model_ms"] = first - model_first if first and model_first else None
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
            "asks": (c.request.schema or {}).get("title") or ",".join(t.name for t in c.request.tools) or "prose",
            "tokens": c.answer_tokens,
        }
        for c in sorted(calls, key=lambda c: c.started)
    ]


def concurrency_numbers(
    runs: Sequence[TimedRun], wall_s: float, critical_s: float | None, worker_cpu_s: float, worker_peak_rss: int
) -> dict[str, Any]:
    """One phase of n runs at once: throughput (completed runs per second of the phase) against the model-bound
    ideal (n / the family's critical path), errors (no terminal event, or an HTTP error), runs that ended but did
    not complete, wall time percentiles of the runs that ended, the worker's CPU and peak memory."""
    n = len(runs)
    walls = [r.wall_s for r in runs if r.ok]
    per_s = sum(r.completed for r in runs) / wall_s
    ideal = n / critical_s if critical_s else None
    return {
        "runs": n,
        "runs_per_s": per_s,
        "ideal_runs_per_s": ideal,
        "of_ideal": ratio(per_s, ideal) if ideal else None,
        "errors": sum(not r.ok for r in runs),
        "not_completed": sum(r.ok and not r.completed for r in runs),
        "p50_s": percentile(walls, 50),
        "p99_s": percentile(walls, 99),
        "phase_s": wall_s,
        "worker_cpu_s": worker_cpu_s,
        "worker_peak_rss_mb": worker_peak_rss / 2**20,
        "error_examples": sorted({r.error or "" for r in runs if not r.ok})[:3],
    }
