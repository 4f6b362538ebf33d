"""The benchmark's numbers: statistics over timed runs, the printed table, `report.json` and `latency.png`.

Percentiles interpolate linearly between the closest ranks (numpy's default); ratios are project / LangGraph, so
above 1 means this project takes longer (or, for throughput, serves more).
"""

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.bench.measure import RunResult

PROJECT = "project"
LANGGRAPH = "langgraph"
SYSTEMS = (PROJECT, LANGGRAPH)
LABELS = {PROJECT: "this project (Temporal)", LANGGRAPH: "LangGraph + AsyncSqliteSaver"}


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) of `values`, interpolated linearly; NaN when there are none."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def orchestration_per_node(run_ms: float, node_work_ms: float, nodes: Sequence[str]) -> float:
    """What a run costs beyond its nodes' own work, per node of the declared graph it visited: (run time − node
    work) / nodes. Both systems divide by the same count, their run's path through the same declared graph (the
    headline prompt's six: validate_input, planner, rag, executor, critic, genui), whatever each node is made of
    (an activity, a local activity, workflow code, a LangGraph node)."""
    return (run_ms - node_work_ms) / len(nodes) if nodes else math.nan


def latency_summary(results: Sequence[RunResult]) -> dict[str, Any]:
    """Latency statistics of the runs that reached `stream_end`, and how many did not."""
    good = [r for r in results if r.ok]
    totals = [r.total_ms for r in good]
    firsts = [r.first_event_ms for r in good if r.first_event_ms is not None]
    headers = [r.headers_ms for r in good if r.headers_ms is not None]
    return {
        "runs": len(results),
        "errors": len(results) - len(good),
        "not_completed": sum(r.ok and not r.completed for r in results),
        "p50_ms": percentile(totals, 50),
        "p90_ms": percentile(totals, 90),
        "p99_ms": percentile(totals, 99),
        "min_ms": min(totals, default=math.nan),
        "max_ms": max(totals, default=math.nan),
        "first_event_p50_ms": percentile(firsts, 50),
        "first_event_p90_ms": percentile(firsts, 90),
        "headers_p50_ms": percentile(headers, 50),
        "samples_ms": [round(t, 2) for t in totals],
        "first_event_samples_ms": [round(t, 2) for t in firsts],
    }


def concurrency_summary(results: Sequence[RunResult], wall_s: float) -> dict[str, Any]:
    """One concurrency phase of one system: latency p50/p99 (runs that reached `stream_end`), throughput (runs
    that completed, per second of the phase), errors (non-200, or no `stream_end`), runs that did not complete."""
    good = [r for r in results if r.ok]
    totals = [r.total_ms for r in good]
    completed = sum(r.completed for r in results)
    return {
        "runs": len(results),
        "errors": len(results) - len(good),
        "not_completed": len(good) - completed,
        "p50_ms": percentile(totals, 50),
        "p99_ms": percentile(totals, 99),
        "runs_per_s": completed / wall_s if wall_s > 0 else math.nan,
        "wall_s": wall_s,
        "samples_ms": [round(t, 2) for t in totals],
        "error_examples": sorted({r.error or f"HTTP {r.status_code}" for r in results if not r.ok})[:5],
    }


def _ms(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return f"{value:.1f} ms" if abs(value) < 100 else f"{value:.0f} ms"


def _x(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}×"


def table(report: Mapping[str, Any]) -> str:
    """The headline table (Markdown), then the details behind it."""
    p, lg = report[PROJECT], report[LANGGRAPH]
    overhead = report["node_overhead_ms"]
    nodes = report["nodes_per_run"]
    cpu = report["cpu_ms_per_run"]
    levels = sorted(report["concurrency"], key=int)
    rows = [
        ("", LABELS[PROJECT], LABELS[LANGGRAPH], "ratio"),
        ("---", "---", "---", "---"),
        (
            "POST → `stream_end`",
            f"p50 {_ms(p['p50_ms'])}, p90 {_ms(p['p90_ms'])}",
            f"p50 {_ms(lg['p50_ms'])}, p90 {_ms(lg['p90_ms'])}",
            _x(report["ratio_p50"]),
        ),
        (
            "POST → first event",
            f"p50 {_ms(p['first_event_p50_ms'])}, p90 {_ms(p['first_event_p90_ms'])}",
            f"p50 {_ms(lg['first_event_p50_ms'])}, p90 {_ms(lg['first_event_p90_ms'])}",
            _x(ratio(p["first_event_p50_ms"], lg["first_event_p50_ms"])),
        ),
        (
            "orchestration cost per node",
            f"{_ms(overhead[PROJECT])} ({nodes[PROJECT]} graph nodes)",
            f"{_ms(overhead[LANGGRAPH])} ({nodes[LANGGRAPH]} graph nodes)",
            _x(ratio(overhead[PROJECT], overhead[LANGGRAPH])),
        ),
        (
            "CPU per run, all processes",
            _ms(cpu[PROJECT]["total"]),
            _ms(cpu[LANGGRAPH]["total"]),
            _x(ratio(cpu[PROJECT]["total"], cpu[LANGGRAPH]["total"])),
        ),
    ]
    if levels:
        top = report["concurrency"][levels[-1]]
        rows.append(
            (
                f"{levels[-1]} concurrent sessions: throughput",
                _throughput(top[PROJECT]),
                _throughput(top[LANGGRAPH]),
                _x(ratio(top[PROJECT]["runs_per_s"], top[LANGGRAPH]["runs_per_s"])),
            )
        )
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    lines += ["", *_details(report, levels)]
    return "\n".join(lines) + "\n"


def _throughput(summary: Mapping[str, Any]) -> str:
    return f"{summary['runs_per_s']:.1f} runs/s"


def _details(report: Mapping[str, Any], levels: Sequence[str]) -> list[str]:
    p, lg = report[PROJECT], report[LANGGRAPH]
    cpu, idle = report["cpu_ms_per_run"], report["cpu_idle_ms_per_s"]
    work = report["node_work_ms"]
    history = report["history_events"]
    others = report["machine"]["other_processes_cores_busy"]
    lines = [
        f"prompt {report['prompt']!r}; {report['runs']} interleaved sequential runs per system (errors / not "
        f"completed: project {p['errors']} / {p['not_completed']}, langgraph {lg['errors']} / {lg['not_completed']}); "
        f"{report['machine']['cpus']} CPUs; LangGraph durability {report['langgraph_durability']!r}; bytecode cache "
        f"{'on' if report['bytecode_cache'] else 'as inherited'}",
        f"POST → response headers, p50: project {_ms(p['headers_p50_ms'])}, langgraph {_ms(lg['headers_p50_ms'])}",
        f"during the sequential runs, other processes kept {others:.2f} CPUs busy and this client "
        f"{report['machine']['bench_client_cores_busy']:.2f}"
        + (" (a busy machine: unreliable numbers)" if others > 0.2 else ""),
        "CPU per run by process (user + system; in brackets: the same with each process's idle rate removed):",
    ]
    for system in SYSTEMS:
        minus_idle = report["cpu_ms_per_run_minus_idle"][system]
        parts = [f"{name} {_ms(value)} [{_ms(minus_idle[name])}]" for name, value in cpu[system].items()]
        lines.append(f"  {system}: " + ", ".join(parts))
    lines.append("idle CPU (nothing asked of it): " + ", ".join(f"{k} {v:.1f} ms/s" for k, v in idle.items()))
    lines.append(
        f"node work, in process (median of {work['repetitions']}): "
        + ", ".join(f"{k} {_ms(v)}" for k, v in work["per_node"].items())
        + f"; sum {_ms(work['total'])}"
    )
    lines.append(
        f"history events per turn (project): {report['history_events_per_turn']} "
        f"(run {history['run']}, added to the session {history['session_added']}; a session's first turn: "
        f"{history['first_turn_total']}); LangGraph checkpoints per turn: {report['langgraph_checkpoints_per_turn']}"
    )
    lines.append(
        f"same SSE events from both (types, nodes, payloads; ts and host aside): {report['same_events']}; "
        f"same node results (project history vs baseline calls): {report['same_node_results']}"
    )
    project_nodes, langgraph_nodes = ", ".join(report["project_nodes"]), ", ".join(report["langgraph_nodes"])
    lines.append(
        f"graph nodes per run (what the orchestration cost is divided by; the same path on both sides: "
        f"{report['same_graph_nodes']}): project {project_nodes}; langgraph {langgraph_nodes}; "
        f"the project's activities: {', '.join(report['project_activities'])}"
    )
    for level in levels:
        phase = report["concurrency"][level]
        turns = report["turns_per_session"]
        for system in SYSTEMS:
            s = phase[system]
            lines.append(
                f"{level} concurrent sessions × {turns} turns, {system}: p50 {_ms(s['p50_ms'])}, "
                f"p99 {_ms(s['p99_ms'])}, {s['runs_per_s']:.1f} runs/s, {s['errors']} errors, "
                f"{s['not_completed']} not completed"
            )
    return lines


def write_json(report: Mapping[str, Any], path: Path) -> None:
    def clean(value: Any) -> Any:
        if isinstance(value, float):
            return None if math.isnan(value) else round(value, 3)
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        return value

    path.write_text(json.dumps(clean(report), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def write_chart(report: Mapping[str, Any], path: Path) -> None:
    """Box plots with every run as a dot: POST → stream_end and POST → first event (sequential runs), and the
    POST → stream_end latencies of each concurrency phase."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = sorted(report["concurrency"], key=int)
    panels = 2 + (1 if levels else 0)
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 5.2), squeeze=False)
    colours = {PROJECT: "#4c72b0", LANGGRAPH: "#dd8452"}

    def boxes(ax: Any, series: Sequence[tuple[str, str, Sequence[float]]], title: str) -> None:
        data = [list(values) or [math.nan] for _, _, values in series]
        plot = ax.boxplot(data, patch_artist=True, showfliers=False, widths=0.55)
        for index, (patch, (_, system, values)) in enumerate(zip(plot["boxes"], series, strict=True)):
            patch.set_facecolor(colours[system])
            patch.set_alpha(0.45)
            xs = [index + 1 + 0.18 * ((i * 0.618) % 1 - 0.5) for i in range(len(values))]
            ax.scatter(xs, values, s=9, color=colours[system], alpha=0.8, zorder=3)
        ax.set_xticks(range(1, len(series) + 1), [label for label, _, _ in series], fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel("ms")
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", alpha=0.3)

    sequential = [(LABELS[s].replace(" + ", "\n+ "), s, report[s]["samples_ms"]) for s in SYSTEMS]
    boxes(axes[0][0], sequential, f"POST → stream_end ({report['runs']} sequential runs each)")
    first = [(LABELS[s].replace(" + ", "\n+ "), s, report[s]["first_event_samples_ms"]) for s in SYSTEMS]
    boxes(axes[0][1], first, "POST → first SSE event")
    if levels:
        series = [
            (
                f"{level}\n{'Temporal' if s == PROJECT else 'LangGraph'}",
                s,
                report["concurrency"][level][s]["samples_ms"],
            )
            for level in levels
            for s in SYSTEMS
        ]
        boxes(axes[0][2], series, f"POST → stream_end, concurrent sessions × {report['turns_per_session']} turns")
    fig.suptitle("Image agent, one chat turn of the headline prompt, offline (lower is better)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
