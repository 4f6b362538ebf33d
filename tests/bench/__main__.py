"""`make bench` / `python -m tests.bench`: this project against what a user would pick instead, side by side.

What is compared
----------------
Both systems serve the same HTTP contract: `POST /api/agent/chat` with JSON `{"text", "sessionId"}`, answered
with SSE (`id:`, `event:`, `data:`; `thought_log`, `progress`, `gen_ui_component`, `error`, ending with
`stream_end`), each turn in a session, each turn's run durable on disk. Both run offline on the project's
defaults (keyword planner, LanceDB style store, local renderer): the bench refuses to run with `LLM_PROVIDER`
set, and sets `OTEL_EXPORTER=none`. Both sides cache bytecode (Python's default; under `DATA_DIR/bench/pycache`)
even when the shell sets `PYTHONDONTWRITEBYTECODE`, which costs the project a compile of its workflow modules
for every workflow its sandbox starts (`--no-bytecode-cache` keeps the shell's setting).

- **this project**: the real stack, `python -m deploy.stack` (Temporal dev server with its SQLite file, worker,
  gateway: separate processes, on free ports, data under `DATA_DIR/bench/project`). A turn is an
  update-with-start of the session workflow, which starts an `ImageAgentWorkflow` whose nodes are activities (regular or
  local, as `workflows.policies` declares), and its events long-polled by the gateway.
- **LangGraph + AsyncSqliteSaver** (`tests.bench.baseline`, `tests.bench.baseline_server`): one uvicorn process
  serving a small FastAPI app, data under `DATA_DIR/bench/langgraph`. A turn runs a LangGraph `StateGraph` with
  the same nodes, calling the same node functions (the project's activity methods, built by
  `worker.build_activities`, called directly), the same routing functions (`workflows.image.graph`), the same
  requests, events (`workflows.image.ui` components, the gateway's own `format_sse`), degrade paths and per-node
  timeouts and retries (`workflows.policies`), with `thread_id` = the run id and a checkpoint committed to SQLite
  after every step (`durability="sync"` by default, `--durability` to change). Sessions (messages, last image)
  live in LangGraph's `AsyncSqliteStore`. Not matched: its events live only in the HTTP response (the project's
  are kept in the workflow, resumable with `Last-Event-ID`), and a run whose process dies is not resumed by
  anyone (the project's worker would pick it up): the baseline does less by design.

Phases (the headline prompt is "生成一只赛博朋克风格的猫"):

1. Start both (the stack and the baseline, each its own processes) and warm both up.
2. `--runs` sequential runs per system, interleaved (project, baseline, baseline, project, ...), each in a new
   session, 0.2 s apart: POST → `stream_end` and POST → first SSE event; median, p90, ratio of medians.
3. CPU (user + system) of every process of each system over phase 2, per run; the project's processes are the
   Temporal server, the worker and the gateway (with its intake process). Each process's idle rate is measured
   before and reported too, since the project's processes keep running while the baseline's runs are timed.
4. Orchestration cost per node: (median run time − node work) / nodes of the declared graph the run visited.
   Node work: one turn of the prompt through the baseline's graph in this process records each node function's
   request and result (the results are checked against those in the project run's history:
   `same_node_results`); those requests are then replayed against the same functions, one round after each pair
   of sequential runs of phase 2 (median over the rounds, after 3 warm-up rounds), so the machine's drift hits
   runs and node work alike. Nodes: the same count on both sides, each run's path through the declared graph
   (the headline prompt's six: validate_input, planner, rag, executor, critic, genui): the project run's
   recorded transitions (its `state`, through `GET /v1/runs/{id}`) and the baseline run's LangGraph path
   (`same_graph_nodes` says whether they are equal). GenUI is workflow code in the project and ValidateInput,
   Planner and RAG local activities, so its regular and local activities are listed beside them, not counted.
   The two streams' events are compared too (`same_events`: types, nodes and payloads, timestamps and host
   aside).
5. History events per turn (project): the run's history plus what the turn added to its session's history
   (a session's second turn; the first turn, which also starts the session, is reported too).
6. For each n in `--concurrency`: n sessions at once, each `--turns` turns back to back, against each system in
   turn (each phase starts once every process of both systems is quiet, with an HTTP client of its own): p50
   and p99 of POST → `stream_end`, throughput (completed runs / phase wall time), errors (non-200, or a stream
   without `stream_end`) and runs whose `stream_end` says they did not complete (e.g. the deadline).
7. Print the table; write `DATA_DIR/bench/report.json` and `DATA_DIR/bench/latency.png`.

The client is one asyncio process on the same machine (it competes for the same CPUs as both systems).
"""

import argparse
import asyncio
import os
import platform
import shutil
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, get_args

import httpx
import psutil
from langgraph.types import Durability
from temporalio.client import Client

from models.settings import Settings
from tests.bench.baseline import NodeFunctions
from tests.bench.baseline_server import BaselineProcess, running_baseline
from tests.bench.measure import (
    CpuSampler,
    NodeTimer,
    RunResult,
    chat_run,
    history,
    http_client,
    idle_cpu_ms_per_s,
    machine_busy_seconds,
    node_executions,
    own_cpu_seconds,
    progress_log,
    project_graph_nodes,
    recorded_calls,
    same_results,
    session_runs,
    settled_session_history,
    turn_history,
    wait_quiet,
)
from tests.bench.report import (
    LANGGRAPH,
    PROJECT,
    concurrency_summary,
    latency_summary,
    orchestration_per_node,
    ratio,
    table,
    write_chart,
    write_json,
)
from tests.stack_process import Stack, running_stack

PROMPT = "生成一只赛博朋克风格的猫"
WARMUP_RUNS = 3
IDLE_SAMPLE_S = 3.0
NODE_WARMUP_ROUNDS = 3
SETTLE_S = 0.2
"""Between two sequential runs: the project's session records the end of its turn after `stream_end`, and that
work should not land on the next run, which may be the baseline's."""


log = progress_log("bench")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=25, help="sequential runs per system (default 25)")
    parser.add_argument(
        "--concurrency", type=int, nargs="*", default=[10, 50], help="concurrent sessions per phase (default 10 50)"
    )
    parser.add_argument("--turns", type=int, default=3, help="turns per session in the concurrency phases")
    parser.add_argument("--durability", choices=get_args(Durability), default="sync", help="LangGraph durability")
    parser.add_argument(
        "--no-bytecode-cache",
        dest="bytecode_cache",
        action="store_false",
        help="keep PYTHONDONTWRITEBYTECODE as inherited (default: both sides cache bytecode under DATA_DIR/bench)",
    )
    return parser.parse_args(argv)


def _check(result: RunResult) -> RunResult:
    if not result.ok:
        raise RuntimeError(f"{result.system} run in session {result.session_id} failed: {result.error}")
    return result


def _signature(result: RunResult, base_url: str) -> list[tuple[str, str]]:
    """A run's events without what may differ between two equal runs: timestamps and the server's address."""
    signature = []
    for e in result.events:
        envelope = {k: v for k, v in e.data.items() if k != "ts"}
        text = repr(sorted(envelope.items())).replace(base_url, "<server>")
        signature.append((e.event, text))
    return signature


async def bench(args: argparse.Namespace, stack: Stack, baseline: BaselineProcess, work_dir: Path) -> dict[str, Any]:
    urls = {PROJECT: stack.gateway, LANGGRAPH: baseline.url}
    async with http_client(8) as http:
        log("warming up both systems")
        for i in range(WARMUP_RUNS):
            for system, url in urls.items():
                _check(await chat_run(http, url, system, PROMPT, f"warm-{system}-{i}"))

        log("recording one turn's node calls in this process")
        functions = NodeFunctions.build(Settings(data_dir=work_dir))
        calls = await recorded_calls(functions, PROMPT, "nodework")
        timer = NodeTimer(calls, functions)
        for _ in range(NODE_WARMUP_ROUNDS):
            await timer.round(keep=False)

        groups = {f"{PROJECT}/{role}": pids for role, pids in stack.processes().items()}
        server = psutil.Process(baseline.pid)
        groups[f"{LANGGRAPH}/server"] = [server.pid, *(c.pid for c in server.children(recursive=True))]
        sampler = CpuSampler(groups)
        await wait_quiet(sampler)
        log(f"measuring idle CPU for {IDLE_SAMPLE_S:g} s: {groups}")
        idle = await idle_cpu_ms_per_s(sampler, IDLE_SAMPLE_S)

        log(f"{args.runs} interleaved sequential runs per system")
        runs: dict[str, list[RunResult]] = {PROJECT: [], LANGGRAPH: []}
        before = sampler.sample()
        machine_before, own_before = machine_busy_seconds(), own_cpu_seconds()
        phase_started = time.perf_counter()
        for i in range(args.runs):
            order = [PROJECT, LANGGRAPH] if i % 2 == 0 else [LANGGRAPH, PROJECT]
            for system in order:
                runs[system].append(await chat_run(http, urls[system], system, PROMPT, f"seq-{system}-{i}"))
                await asyncio.sleep(SETTLE_S)
            await timer.round()  # in this process, while both systems are idle
        phase_s = time.perf_counter() - phase_started
        spent = CpuSampler.spent(before, sampler.sample())
        machine_spent = machine_busy_seconds() - machine_before
        own_spent = own_cpu_seconds() - own_before
        others_cores = max(0.0, machine_spent - sum(spent.values()) - own_spent) / phase_s

        cpu: dict[str, dict[str, float]] = {}
        cpu_minus_idle: dict[str, dict[str, float]] = {}
        for system in (PROJECT, LANGGRAPH):
            names = [name for name in groups if name.startswith(f"{system}/")]
            per = {name.split("/", 1)[1]: spent[name] * 1000 / args.runs for name in names}
            net = {
                name.split("/", 1)[1]: max(0.0, spent[name] * 1000 - idle[name] * phase_s) / args.runs for name in names
            }
            cpu[system] = per | {"total": sum(per.values())}
            cpu_minus_idle[system] = net | {"total": sum(net.values())}

        log("history events per turn, node counts")
        client = await Client.connect(stack.temporal_address)
        project_run = _check(runs[PROJECT][0])
        assert project_run.run_id is not None
        first_turn = await turn_history(client, project_run.run_id, project_run.session_id, 1, 0)
        _check(await chat_run(http, urls[PROJECT], PROJECT, PROMPT, "history"))
        session_before = await settled_session_history(client, "history", 1)
        second = _check(await chat_run(http, urls[PROJECT], PROJECT, PROMPT, "history"))
        assert second.run_id is not None
        steady_turn = await turn_history(client, second.run_id, "history", 2, session_before)

        executions = node_executions(await history(client, project_run.run_id))
        baseline_run = _check(runs[LANGGRAPH][0])
        view = (await http.get(f"{baseline.url}/v1/runs/{baseline_run.run_id}")).json()
        work = timer.result()

        summaries = {system: latency_summary(results) for system, results in runs.items()}
        graph_nodes = {
            PROJECT: await project_graph_nodes(http, stack.gateway, project_run.run_id),
            LANGGRAPH: list(view["nodes"]),
        }
        overhead = {
            system: orchestration_per_node(summaries[system]["p50_ms"], work.total_ms, graph_nodes[system])
            for system in (PROJECT, LANGGRAPH)
        }
        same_events = _signature(runs[PROJECT][-1], stack.gateway) == _signature(runs[LANGGRAPH][-1], baseline.url)

        concurrency: dict[str, dict[str, Any]] = {}
        for n in args.concurrency:
            concurrency[str(n)] = {}
            for system in (PROJECT, LANGGRAPH):
                quiet_after = await wait_quiet(sampler)
                log(f"{n} concurrent sessions × {args.turns} turns: {system} (quiet after {quiet_after:.1f} s)")
                async with http_client(n + 8) as phase_http:  # a pool of its own: no connections left to the other
                    started = time.perf_counter()
                    batches = await asyncio.gather(
                        *(
                            session_runs(phase_http, urls[system], system, PROMPT, f"c{n}-{system}-{i}", args.turns)
                            for i in range(n)
                        )
                    )
                    wall = time.perf_counter() - started
                concurrency[str(n)][system] = concurrency_summary([r for b in batches for r in b], wall)

    return {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "prompt": PROMPT,
        "runs": args.runs,
        "turns_per_session": args.turns,
        "langgraph_durability": args.durability,
        "bytecode_cache": args.bytecode_cache,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average_at_end": os.getloadavg()[0],
            "other_processes_cores_busy": others_cores,
            "bench_client_cores_busy": own_spent / phase_s,
        },
        PROJECT: summaries[PROJECT],
        LANGGRAPH: summaries[LANGGRAPH],
        "ratio_p50": ratio(summaries[PROJECT]["p50_ms"], summaries[LANGGRAPH]["p50_ms"]),
        "ratio_first_event_p50": ratio(
            summaries[PROJECT]["first_event_p50_ms"], summaries[LANGGRAPH]["first_event_p50_ms"]
        ),
        "node_work_ms": {"per_node": work.per_node_ms, "total": work.total_ms, "repetitions": work.repetitions},
        "nodes_per_run": {system: len(path) for system, path in graph_nodes.items()},
        "project_nodes": graph_nodes[PROJECT],
        "langgraph_nodes": graph_nodes[LANGGRAPH],
        "same_graph_nodes": graph_nodes[PROJECT] == graph_nodes[LANGGRAPH],
        "project_activities": [f"{e.name} ({'local' if e.local else 'regular'})" for e in executions],
        "same_node_results": same_results(executions, calls),
        "node_overhead_ms": overhead,
        "cpu_ms_per_run": cpu,
        "cpu_ms_per_run_minus_idle": cpu_minus_idle,
        "cpu_idle_ms_per_s": idle,
        "sequential_phase_s": phase_s,
        "history_events_per_turn": steady_turn.total,
        "history_events": {
            "run": steady_turn.run_events,
            "session_added": steady_turn.session_events,
            "first_turn_total": first_turn.total,
            "first_turn_session": first_turn.session_events,
        },
        "langgraph_checkpoints_per_turn": view["checkpoints"],
        "same_events": same_events,
        "concurrency": concurrency,
    }


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    settings = Settings()
    if settings.llm_provider is not None:
        raise SystemExit("bench: runs offline on both sides; unset LLM_PROVIDER (environment or .env)")
    os.environ["OTEL_EXPORTER"] = "none"  # no tracing export on either side (the environment beats `.env`)
    out = settings.data_dir.resolve() / "bench"
    if args.bytecode_cache:
        # Python's default, whatever this shell says: the worker's sandbox imports the workflow modules again for
        # every workflow it runs, and without cached bytecode it compiles their source each time.
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(out / "pycache")
    dirs = {name: out / name for name in ("project", "langgraph", "nodework")}
    for path in dirs.values():
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
    log(f"starting the stack and the LangGraph baseline (data under {out})")
    with (
        running_stack(dirs["project"], out / "stack.log") as stack,
        running_baseline(dirs["langgraph"], out / "langgraph.log", args.durability) as baseline,
    ):
        report = asyncio.run(bench(args, stack, baseline, dirs["nodework"]))
    write_json(report, out / "report.json")
    write_chart(report, out / "latency.png")
    sys.stdout.write(table(report))
    sys.stdout.write(f"\nwrote {out / 'report.json'} and {out / 'latency.png'}\n")


if __name__ == "__main__":
    try:
        main()
    except httpx.HTTPError as err:
        sys.stderr.write(f"bench: {err}\n")
        raise SystemExit(1) from err
