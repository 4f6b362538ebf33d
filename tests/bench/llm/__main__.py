"""`make bench-llm` / `python -m tests.bench.llm`: how much longer than its model each family's run takes.

Set-up: the model simulator (tests/simulator) in this process, on loopback, at the `bench` latency profile (600 ms
to the first token, 40 tokens/s, an image in 6 s; `--time-scale` shrinks it for a quick look, and the report says
so), writing as a model that does its task (`answers.ON_TASK`: the image agent draws every plan, a reviewer passes a
passable post); the real embedded stack (`python -m deploy.stack`: Temporal dev server, worker, gateway as their
own processes, as a user runs them) configured with the simulator as its OpenAI-compatible model and, unless
`--images local`, its image model (OpenAI Images, `IMAGE_PROVIDER_DEFAULT=openai`: what a deployment with a
configured image model runs; with `local`, the worker's renderer draws, on the worker's CPU, and the image calls
are not model time); the client is this process. Not the in-process gateway of the simulator's API tests: it shares
the test's event loop with the worker and runs on the time-skipping test server, neither of which a user runs, and
both of which would move the wall time.

Phases:
1. One untimed run of each family (warm-up: imports, the worker's caches, the style store).
2. `--runs` sequential rounds, each one run of every family's README example (`families`), alone on the machine's
   stack: wall time (POST → terminal event, on the client), the run's model calls (the simulator's log entries
   admitted between the two), their critical path (`critical_path`) and the ratio wall / critical path; for each
   family whose agents stream their text (writing, content, app), POST → the first `content` event on the client
   against POST → the first token the simulator wrote of the call whose text that event carries, and against the
   token that began its words (a JSON answer's first value comes some tokens after its first brace); each
   streamed piece of the Writer's prose against the simulator's write times of its first and last token
   (`numbers.piece_lags`, p50 and p99 pooled over the runs); the run's history events and its `content_delta`
   signals (the writing Writer's too: what its chapter cost). The person of the writing chain answers "B" as soon as
   `user_input_required` arrives (so the wall time includes no human time).
3. The LangGraph baseline of the writing chain (`baseline`): the same model requests on the same simulator,
   grouped as the project's run issued them, in a LangGraph graph with a durable SQLite checkpointer, an
   `interrupt()` for the person and `stream_mode="messages"` token streaming; the same numbers.
4. For each n in `--concurrency`, for each family: n runs at once (writing: n projects), each with an HTTP client
   of its own pool: throughput (completed runs / phase wall time) against the model-bound ideal, errors (non-200,
   a stream without its terminal event), runs not completed, runs that completed degraded (they reported an
   `error` event and went on without a part, such as a writing run's preprocessing task that timed out), the
   model seconds of the phase's calls per run (the simulator's pace), p50/p99 wall time, the worker's peak RSS, and the
   CPU seconds over the phase of the worker (also per run), the gateway, the Temporal server and this process
   (the simulator and the clients), the share of the machine's cores they kept busy (near 100 %, the runs
   waited on the machine rather than on their model), and the cores they would keep busy at the ideal throughput.
   `--concurrency-time-scale` runs these phases at another time scale than the sequential ones (the critical
   path, and so the ideal, scaled with it): CPU per run does not shrink with the time scale, so at 0.25 a run's
   model time is a quarter of the profile's while its CPU is not, and 50 runs at once can be bound by the
   machine's two cores where the same runs at the profile's own speed (1) are bound by their model.
   The ideal: every run held only by its model, all starting at once, so n / the longest critical path of the
   phase's runs. A family whose body has a text every model call quotes (`Family.marked`: the content topic, the
   app request) gets a marker per run there, and each run's calls are told apart in the simulator's log
   (`numbers.marked_calls`): the ideal is its own runs' (each run gets its own answers from the simulator, and
   content runs made 43 to 60 calls), and each run's wall / critical path is reported. Otherwise (or when a call
   quotes no marker) the ideal is n / the family's median sequential critical path.
5. `DATA_DIR/bench/llm-report.json` (written after every phase with `"partial": true`, so a phase that never ends
   leaves the ones before it), `DATA_DIR/bench/llm.png`, and the table on stdout.
"""

import argparse
import asyncio
import json
import os
import platform
import shutil
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psutil
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from models.settings import Settings
from models.streaming import CONTENT_SIGNAL
from tests.bench.llm.baseline import run_baseline
from tests.bench.llm.chart import write_chart
from tests.bench.llm.client import TimedRun, timed_run
from tests.bench.llm.families import FAMILIES, Family, marker
from tests.bench.llm.numbers import (
    concurrency_numbers,
    family_summary,
    marked_calls,
    model_seconds,
    per_run_paths,
    run_calls,
    sequential_numbers,
    text_call,
)
from tests.bench.measure import CpuSampler, history, http_client, progress_log, wait_quiet
from tests.bench.report import write_json
from tests.simulator.answers import ON_TASK
from tests.simulator.fixtures import simulator_image_settings, simulator_settings
from tests.simulator.profiles import BENCH
from tests.simulator.server import LoggedCall, Simulator
from tests.stack_process import Stack, running_stack

MEMORY_SAMPLE_S = 0.25


log = progress_log("bench-llm")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.llm", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5, help="sequential rounds, one run of each family (default 5)")
    parser.add_argument("--concurrency", type=int, nargs="*", default=[10, 50], help="runs at once (default 10 50)")
    parser.add_argument("--time-scale", type=float, default=1.0, help="multiplies the profile's delays (default 1)")
    parser.add_argument(
        "--families", nargs="*", default=[f.name for f in FAMILIES], help="families to run (spaces or commas between)"
    )
    parser.add_argument(
        "--images",
        choices=("api", "local"),
        default="api",
        help="what draws the images: the simulator's image API at the profile's image time (default), or the local "
        "renderer on the worker's CPU",
    )
    parser.add_argument(
        "--concurrency-time-scale",
        type=float,
        default=None,
        help="time scale of the runs-at-once phases (default: --time-scale)",
    )
    args = parser.parse_args(argv)
    args.families = [name for names in args.families for name in names.split(",") if name]
    unknown = sorted(set(args.families) - {f.name for f in FAMILIES})
    if unknown:
        parser.error(f"unknown families: {', '.join(unknown)}")
    return args


async def one_run(http: httpx.AsyncClient, family: Family, gateway: str, index: int, tag: str) -> TimedRun:
    return await timed_run(
        http, family.name, await family.url(gateway), family.body_for(f"{tag}-{index}"), family.answer
    )


def worker_of(sampler: CpuSampler) -> CpuSampler:
    """The worker's group alone: what a phase waits to go quiet (the other processes never idle as low)."""
    return CpuSampler({"worker": sampler.groups["worker"]})


class PeakMemory:
    """The peak resident memory of a group of processes, sampled in a thread while a phase runs."""

    def __init__(self, pids: Sequence[int]) -> None:
        self.pids, self.peak_bytes = list(pids), 0
        self._task: asyncio.Task[None] | None = None

    def _rss(self) -> int:
        total = 0
        for pid in self.pids:
            try:
                total += psutil.Process(pid).memory_info().rss
            except psutil.NoSuchProcess:
                continue
        return total

    async def _sample(self) -> None:
        while True:
            self.peak_bytes = max(self.peak_bytes, await asyncio.to_thread(self._rss))
            await asyncio.sleep(MEMORY_SAMPLE_S)

    async def __aenter__(self) -> "PeakMemory":
        self._task = asyncio.create_task(self._sample())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


async def run_history(client: Client, workflow_id: str) -> dict[str, Any]:
    """What a run's streamed text cost its history: all its events, the `content_delta` signals, and the writing
    Writer's (its chapter)."""
    events = await history(client, workflow_id)
    agents = [
        json.loads(e.workflow_execution_signaled_event_attributes.input.payloads[0].data).get("agent")
        for e in events
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
        and e.workflow_execution_signaled_event_attributes.signal_name == CONTENT_SIGNAL
    ]
    return {"history_events": len(events), "content_signals": len(agents), "writer_signals": agents.count("writer")}


async def concurrent_phase(
    stack: Stack, simulator: Simulator, family: Family, n: int, critical_s: float | None, sampler: CpuSampler
) -> dict[str, Any]:
    worker = stack.processes()["worker"]
    await wait_quiet(worker_of(sampler))
    gateway = stack.gateway
    async with http_client(n + 8) as http, PeakMemory(worker) as memory:
        http.base_url = httpx.URL(gateway)
        urls = await asyncio.gather(*(family.url(gateway) for _ in range(n)))  # untimed set-up
        tags = [f"c{n}-{i}" for i in range(n)]
        before = sampler.sample()
        started = time.monotonic()
        runs = await asyncio.gather(
            *(
                timed_run(http, family.name, url, family.body_for(tag, marked=True), family.answer)
                for tag, url in zip(tags, urls, strict=True)
            )
        )
        wall = time.monotonic() - started
        spent = CpuSampler.spent(before, sampler.sample())
    per_run = None
    phase_calls = [call for call in list(simulator.log) if started <= call.started]
    model_s = model_seconds(phase_calls)
    if family.marked is not None:
        by_run, unmarked = marked_calls(phase_calls, [marker(tag) for tag in tags])
        if unmarked:
            log(f"  {unmarked} of {len(phase_calls)} calls quote no run's marker: the ideal is the sequential one")
        else:
            per_run = per_run_paths(runs, by_run)
    return concurrency_numbers(runs, wall, critical_s, spent, memory.peak_bytes, per_run, model_s)


async def bench(
    args: argparse.Namespace, stack: Stack, simulator: Simulator, work_dir: Path, path: Path
) -> dict[str, Any]:
    """Runs the phases (module docstring); writes the report to `path` after each, and returns it."""
    families = [f for f in FAMILIES if f.name in args.families]
    processes = stack.processes()
    sampler = CpuSampler(
        {"worker": processes["worker"], "gateway": processes["gateway"], "temporal": processes["temporal"]}
        | {"bench": [os.getpid()]}
    )
    sequential: dict[str, list[dict[str, Any]]] = {f.name: [] for f in families}
    writing_calls: list[LoggedCall] = []
    writing_answered: float | None = None
    writing_text: int | None = None
    temporal = await Client.connect(stack.temporal_address)
    async with http_client(8) as http:
        http.base_url = httpx.URL(stack.gateway)
        log("warm-up: one run of each family")
        for family in families:
            warm = await one_run(http, family, stack.gateway, 0, "warm")
            log(f"  {family.name}: {warm.wall_s:.1f} s, {warm.status}, {warm.error or 'ok'}")
        for round_ in range(args.runs):
            for family in families:
                await wait_quiet(worker_of(sampler))
                run = await one_run(http, family, stack.gateway, round_, "seq")
                numbers = sequential_numbers(simulator, run)
                sequential[family.name].append(numbers)
                log(
                    f"round {round_ + 1} {family.name}: wall {numbers['wall_s']:.2f} s, critical path "
                    f"{numbers['critical_path_s']:.2f} s, {numbers['calls']} calls, {run.status}, {run.error or 'ok'}"
                )
                if run.ok and run.run_id is not None:
                    numbers |= await run_history(temporal, run.run_id)
                if family.name == "writing" and run.ok and run.run_id is not None:
                    writing_calls, writing_answered = run_calls(simulator, run), run.answered
                    source = text_call(writing_calls, run.first_text_sample, run.first_text or run.posted)
                    writing_text = source.number if source is not None else None
    summaries = {name: family_summary(samples) for name, samples in sequential.items()}
    concurrency: dict[str, dict[str, Any]] = {}
    langgraph: dict[str, Any] = {}
    report: dict[str, Any] = {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "profile": {
            "name": BENCH.name,
            "first_token_s": BENCH.first_token,
            "tokens_per_second": BENCH.tokens_per_second,
            "image_seconds": BENCH.image_seconds if args.images == "api" else None,
            "images": args.images,
            "time_scale": args.time_scale,
            "concurrency_time_scale": args.concurrency_time_scale or args.time_scale,
        },
        "runs": args.runs,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "families": summaries,
        "langgraph": langgraph,
        "concurrency": concurrency,
    }

    def keep() -> None:
        """The report so far, marked partial, so that a phase that never ends leaves the earlier ones."""
        report["machine"]["load_average_at_end"] = os.getloadavg()[0]
        write_json(report | {"partial": True}, path)

    keep()
    if writing_calls:
        log(f"LangGraph baseline of the writing chain: {args.runs} runs")
        samples = await run_baseline(simulator, writing_calls, writing_answered, writing_text, args.runs, work_dir)
        langgraph["writing"] = family_summary(samples)
        keep()

    scale = args.concurrency_time_scale or args.time_scale
    simulator.time_scale = scale
    for n in args.concurrency:
        concurrency[str(n)] = {}
        for family in families:
            log(f"{n} runs at once: {family.name} (time scale {scale:g})")
            critical = summaries[family.name]["critical_path_s"]
            critical = critical * scale / args.time_scale if critical else None
            phase = await concurrent_phase(stack, simulator, family, n, critical, sampler)
            concurrency[str(n)][family.name] = phase
            keep()
            log(
                f"  {phase['runs_per_s']:.2f} runs/s (ideal {phase['ideal_runs_per_s'] or 0:.2f}), "
                f"{phase['errors']} errors, p99 {phase['p99_s']:.1f} s"
            )

    return report | {"partial": False}


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None or value != value else f"{value:.{digits}f}"


def _lags(summary: dict[str, Any]) -> str:
    last, first = summary.get("piece_lag_ms"), summary.get("piece_first_token_lag_ms")
    if not last or not first:
        return "n/a"
    return f"{_num(last['p50'], 0)} / {_num(last['p99'], 0)}; {_num(first['p50'], 0)} / {_num(first['p99'], 0)}"


def _ideal_from(phase: dict[str, Any]) -> str:
    """Where a phase's ideal comes from, its runs' calls, and their wall over critical path: its own runs told
    apart, or the sequential run (n/a: n/a)."""
    per_run = phase.get("per_run")
    if per_run is None:
        return "sequential run | n/a | n/a"
    calls, ratios = per_run["calls"], per_run["ratio"]
    return f"its runs | {calls['min']}–{calls['max']} | {_num(ratios['p50'])} / {_num(ratios['p99'])}"


def _degraded(phase: dict[str, Any]) -> str:
    """How many completed runs reported an error and went on, and the codes they reported most."""
    codes = ", ".join(f"{code} ×{count}" for code, count in (phase.get("reported_codes") or {}).items())
    return f"{phase.get('degraded', 0)}" + (f" ({codes})" if codes else "")


def table(report: dict[str, Any]) -> str:
    """The report's numbers as Markdown tables."""
    rows = [
        "| family | wall s | critical path s | ratio | calls | first text ms (client) | its model first token ms "
        "| its first words written ms | streamed text lag ms | piece lag p50 / p99 ms (last token; first token) "
        "| history events (content signals; the Writer's) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    entries = [(name, s) for name, s in report["families"].items()]
    entries += [(f"{name} (LangGraph)", s) for name, s in report["langgraph"].items()]
    for name, s in entries:
        rows.append(
            f"| {name} | {_num(s['wall_s'])} | {_num(s['critical_path_s'])} | {_num(s['ratio'])} | "
            f"{_num(s['calls'], 0)} | {_num(s['first_token_ms'], 0)} | {_num(s['model_first_token_ms'], 0)} | "
            f"{_num(s.get('first_words_written_ms'), 0)} | "
            f"{_num(s['stream_lag_ms'], 0)} | {_lags(s)} | {_num(s.get('history_events'), 0)} "
            f"({_num(s.get('content_signals'), 0)}; {_num(s.get('writer_signals'), 0)}) |"
        )
    if report["concurrency"]:
        rows += _concurrency_rows(report["concurrency"])
    profile = report["profile"]
    images = (
        f"images from the simulator's API in {profile['image_seconds']:g} s"
        if profile.get("images", "local") == "api"
        else "images from the local renderer"
    )
    rows.append(
        f"\nprofile {profile['name']} ({profile['first_token_s'] * 1000:.0f} ms to the first token, "
        f"{profile['tokens_per_second']:g} tokens/s; {images}) × time scale {profile['time_scale']:g} (runs at once: "
        f"{profile['concurrency_time_scale']:g}); medians of "
        f"{report['runs']} sequential runs; load average at the end {report['machine']['load_average_at_end']:.2f}"
    )
    return "\n".join(rows) + "\n"


def _concurrency_rows(concurrency: dict[str, Any]) -> list[str]:
    """The runs-at-once table (a report without such phases has none)."""
    rows = [
        "",
        "| runs at once | family | runs/s | ideal runs/s | of ideal | ideal from | each run's calls "
        "| each run's wall / critical path p50 / p99 | errors | not completed | degraded (codes) | model s/run "
        "| p99 s | worker CPU s | worker CPU s/run | bench CPU s | machine busy | cores for the ideal "
        "| worker peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, phase in concurrency.items():
        for name, c in phase.items():
            rows.append(
                f"| {n} | {name} | {_num(c['runs_per_s'])} | {_num(c['ideal_runs_per_s'])} | {_num(c['of_ideal'])} | "
                f"{_ideal_from(c)} | {c['errors']} | {c['not_completed']} | {_degraded(c)} | "
                f"{_num(c.get('model_s_per_run'), 1)} | {_num(c['p99_s'])} | "
                f"{_num(c['worker_cpu_s'], 1)} | "
                f"{_num(c['worker_cpu_s_per_run'], 2)} | {_num(c['cpu_s']['bench'], 1)} | "
                f"{_num(c['busy'] * 100, 0)} % | {_num(c.get('cores_for_ideal'), 1)} | "
                f"{_num(c['worker_peak_rss_mb'], 0)} |"
            )
    return rows


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    out = Settings().data_dir.resolve() / "bench"
    work = out / "llm"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    simulator = Simulator(profile=BENCH, time_scale=args.time_scale, style=ON_TASK)
    simulator.start()
    fields = simulator_settings(simulator) | (simulator_image_settings(simulator) if args.images == "api" else {})
    env = {key.upper(): str(value) for key, value in fields.items()} | {"OTEL_EXPORTER": "none"}
    log(f"starting the stack with the simulator at {simulator.base_url} as its model (data under {work})")
    try:
        with running_stack(work / "stack", work / "stack.log", env=env) as stack:
            report = asyncio.run(bench(args, stack, simulator, work, out / "llm-report.json"))
    finally:
        simulator.stop()
    write_json(report, out / "llm-report.json")
    write_chart(report, out / "llm.png")
    sys.stdout.write(table(report))
    sys.stdout.write(f"\nwrote {out / 'llm-report.json'} and {out / 'llm.png'}\n")


if __name__ == "__main__":
    main()
