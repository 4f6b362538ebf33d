"""What the benchmark measures and how: the timing client, CPU sampling, Temporal histories, node work.

- `chat_run`: one chat turn over HTTP, the same client code for both systems: the POST, the first SSE event
  received (a complete `id:/event:/data:` block; keepalive comments do not count) and `stream_end`, timed with
  `time.perf_counter` from just before the request is sent.
- `CpuSampler`: user + system CPU time of named groups of processes (psutil), read before and after a phase.
- `turn_history` / `node_executions`: a project turn's histories (its run, and what it added to its session) and
  the activity executions (regular and local) recorded in the run's history, with their results.
- `project_graph_nodes` / `graph_nodes`: the nodes of the declared graph a project run visited, from the
  transitions its state records (the count the orchestration cost per node divides by, as the baseline's path).
- `recorded_calls` / `NodeTimer`: one turn through the baseline's graph in this process, recording each node
  function's request and result (`same_results` holds them against the project run's history), then those
  requests replayed against the same functions, timed per node (the median over rounds, after warm-up).
"""

import asyncio
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import httpx
import psutil
from pydantic import BaseModel
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from api.principals import LOCAL_PRINCIPAL
from models.image import nodes
from models.image.state import UserInput
from tests.bench.baseline import NodeCall, NodeFunctions, build_graph, initial_state
from tests.sse import SseEvent, parse_sse
from workflows.image.graph import END
from workflows.image.session import session_workflow_id

RESULT_MODELS: dict[str, type[BaseModel]] = {
    spec.name: spec.result for spec in (nodes.VALIDATE_INPUT, nodes.PLANNER, nodes.RAG, nodes.EXECUTOR, nodes.CRITIC)
}


def progress_log(name: str) -> Callable[[str], None]:
    """A benchmark's progress lines on stderr, each `[name HH:MM:SS] message` (stdout is for its table)."""

    def log(message: str) -> None:
        sys.stderr.write(f"[{name} {datetime.now().strftime('%H:%M:%S')}] {message}\n")
        sys.stderr.flush()

    return log


# ---- one chat turn over HTTP ----


@dataclass
class RunResult:
    """One chat turn as the client saw it."""

    system: str
    session_id: str
    status_code: int = 0
    run_id: str | None = None
    total_ms: float = 0.0
    """POST → `stream_end` received (or → the stream's end, when it never came)."""
    headers_ms: float | None = None
    """POST → the response's headers (the project: its turn has been submitted to its session)."""
    first_event_ms: float | None = None
    """POST → the first complete SSE event."""
    ended: bool = False
    """`stream_end` was received."""
    run_status: str | None = None
    """`stream_end`'s status (completed, failed, ...)."""
    events: list[SseEvent] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Answered 200 and streamed to `stream_end` (whatever the run's status)."""
        return self.status_code == 200 and self.ended and self.error is None

    @property
    def completed(self) -> bool:
        """`ok`, and the run completed (not failed, timed out or cancelled)."""
        return self.ok and self.run_status == "completed"


async def chat_run(http: httpx.AsyncClient, base_url: str, system: str, text: str, session_id: str) -> RunResult:
    """POST one chat message and read its SSE stream to `stream_end`."""
    result = RunResult(system=system, session_id=session_id)
    body = {"text": text, "sessionId": session_id}
    started = time.perf_counter()
    try:
        async with http.stream("POST", f"{base_url}/api/agent/chat", json=body) as response:
            result.headers_ms = (time.perf_counter() - started) * 1000
            result.status_code = response.status_code
            result.run_id = response.headers.get("x-run-id")
            if response.status_code != 200:
                result.error = (await response.aread()).decode(errors="replace")[:500]
                result.total_ms = (time.perf_counter() - started) * 1000
                return result
            buffer = ""
            async for chunk in response.aiter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    parsed = parse_sse(block + "\n\n")
                    if not parsed:
                        continue  # a keepalive comment
                    now = time.perf_counter()
                    if result.first_event_ms is None:
                        result.first_event_ms = (now - started) * 1000
                    result.events += parsed
                    if parsed[-1].event == "stream_end":
                        result.total_ms = (now - started) * 1000
                        result.ended = True
                        result.run_status = parsed[-1].data["data"].get("status")
            if not result.ended:
                result.total_ms = (time.perf_counter() - started) * 1000
                result.error = "the stream closed without stream_end"
    except httpx.HTTPError as err:
        result.total_ms = (time.perf_counter() - started) * 1000
        result.error = f"{type(err).__name__}: {err}"
    return result


async def session_runs(
    http: httpx.AsyncClient, base_url: str, system: str, text: str, session_id: str, turns: int
) -> list[RunResult]:
    """A session's turns, back to back (each sent when the previous one's stream has ended)."""
    return [await chat_run(http, base_url, system, text, session_id) for _ in range(turns)]


def http_client(connections: int) -> httpx.AsyncClient:
    """The benchmark's HTTP client: loopback only, no proxies from the environment, enough connections."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(timeout=httpx.Timeout(120.0), limits=limits, trust_env=False)


# ---- CPU ----


def _cpu_seconds(pid: int) -> float:
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.NoSuchProcess:
        return 0.0
    return float(times.user + times.system)


class CpuSampler:
    """User + system CPU seconds of named groups of processes (e.g. the gateway with its intake process)."""

    def __init__(self, groups: Mapping[str, Sequence[int]]) -> None:
        self.groups = {name: list(pids) for name, pids in groups.items()}

    def sample(self) -> dict[str, float]:
        return {name: sum(_cpu_seconds(pid) for pid in pids) for name, pids in self.groups.items()}

    @staticmethod
    def spent(before: Mapping[str, float], after: Mapping[str, float]) -> dict[str, float]:
        """CPU seconds spent per group between two samples."""
        return {name: after[name] - before[name] for name in before}


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (every CPU; idle and iowait excluded)."""
    times = psutil.cpu_times()
    return float(sum(times) - times.idle - getattr(times, "iowait", 0.0))


def own_cpu_seconds() -> float:
    """CPU seconds of this (the benchmark's) process."""
    times = psutil.Process().cpu_times()
    return float(times.user + times.system)


async def idle_cpu_ms_per_s(sampler: CpuSampler, seconds: float) -> dict[str, float]:
    """What each group burns while nothing is asked of it, in CPU ms per wall second."""
    before = sampler.sample()
    await asyncio.sleep(seconds)
    return {name: spent * 1000 / seconds for name, spent in CpuSampler.spent(before, sampler.sample()).items()}


async def wait_quiet(
    sampler: CpuSampler, *, below_ms_per_s: float = 60.0, window_s: float = 0.5, timeout_s: float = 30.0
) -> float:
    """Wait until every group burns less than `below_ms_per_s` of CPU over a `window_s` window (the work a
    previous phase left behind is done), at most `timeout_s`; returns the seconds waited."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        rates = await idle_cpu_ms_per_s(sampler, window_s)
        if max(rates.values(), default=0.0) < below_ms_per_s:
            break
    return time.monotonic() - started


# ---- Temporal histories ----


async def history(client: Client, workflow_id: str) -> list[HistoryEvent]:
    fetched = await client.get_workflow_handle(workflow_id).fetch_history()
    return list(fetched.events)


async def settled_session_history(client: Client, session_id: str, turns: int, timeout: float = 10.0) -> int:
    """The session's history length once it has heard of the end of its `turns`-th run and gone quiet."""
    deadline = time.monotonic() + timeout
    last = -1
    while True:
        events = await history(client, session_workflow_id(LOCAL_PRINCIPAL, session_id))
        done = sum(
            e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
            and e.workflow_execution_signaled_event_attributes.signal_name == "turn_ended"
            for e in events
        )
        quiet = events[-1].event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
        if (done >= turns and quiet and len(events) == last) or time.monotonic() > deadline:
            return len(events)
        last = len(events)
        await asyncio.sleep(0.2)


@dataclass(frozen=True)
class TurnHistory:
    """History events one project turn is made of."""

    run_events: int
    session_events: int
    """What the turn added to its session's history (for a first turn: the session's start too)."""

    @property
    def total(self) -> int:
        return self.run_events + self.session_events


async def turn_history(client: Client, run_id: str, session_id: str, turn: int, session_before: int) -> TurnHistory:
    """The turn's run history, and the session events since `session_before` (its length before the turn)."""
    run = await history(client, run_id)
    session = await settled_session_history(client, session_id, turn)
    return TurnHistory(run_events=len(run), session_events=session - session_before)


LOCAL_ACTIVITY_MARKER = "core_local_activity"


@dataclass(frozen=True)
class NodeExecution:
    """One activity execution recorded in a run's history (a regular or a local activity) and its result."""

    name: str
    local: bool
    result: BaseModel | None


def node_executions(events: Sequence[HistoryEvent]) -> list[NodeExecution]:
    """The activities a run executed for its graph's nodes, in the order they were scheduled (a local activity:
    recorded), with the results the history holds (not the run's report to its session). A local activity's input
    is not recorded, only its result."""
    converter = pydantic_data_converter.payload_converter
    results: dict[int, BaseModel] = {}
    names: dict[int, str] = {}
    for e in events:
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            names[e.event_id] = e.activity_task_scheduled_event_attributes.activity_type.name
        elif e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            completed = e.activity_task_completed_event_attributes
            name = names[completed.scheduled_event_id]
            [results[completed.scheduled_event_id]] = converter.from_payloads(
                list(completed.result.payloads), [RESULT_MODELS[name]]
            )
    executions = []
    for e in events:
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            executions.append(NodeExecution(names[e.event_id], local=False, result=results.get(e.event_id)))
        elif (
            e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
            and e.marker_recorded_event_attributes.marker_name == LOCAL_ACTIVITY_MARKER
        ):
            details = e.marker_recorded_event_attributes.details
            [data] = converter.from_payloads(list(details["data"].payloads), [dict])
            name = str(data["activity_type"])
            if name not in RESULT_MODELS:
                continue
            result = None
            if "result" in details and details["result"].payloads:
                [result] = converter.from_payloads(list(details["result"].payloads), [RESULT_MODELS[name]])
            executions.append(NodeExecution(name, local=True, result=result))
    return executions


def same_results(executions: Sequence[NodeExecution], calls: Sequence[NodeCall]) -> bool:
    """Whether a project run's activities and their results equal the node calls of a baseline run."""
    if [e.name for e in executions] != [c.name for c in calls]:
        return False
    return all(
        e.result is not None and e.result.model_dump(mode="json") == c.result.model_dump(mode="json")
        for e, c in zip(executions, calls, strict=True)
    )


# ---- the declared graph's nodes a run visited ----


def graph_nodes(transitions: Sequence[Sequence[str]]) -> list[str]:
    """The nodes of the declared graph a run visited, in order, from the transitions its state records: each
    transition's target, without the end (`stream_end`), which is no node. A node visited twice (the Critic's
    regeneration loop back to RAG) counts twice, as in the baseline's path."""
    return [target for _, target in transitions if target != END]


async def project_graph_nodes(http: httpx.AsyncClient, gateway: str, run_id: str) -> list[str]:
    """`graph_nodes` of a project run, read through the gateway's run API (`GET /v1/runs/{id}`: the workflow's
    `state` query, whose metadata holds the transitions)."""
    response = await http.get(f"{gateway}/v1/runs/{run_id}")
    response.raise_for_status()
    return graph_nodes(response.json()["state"]["metadata"]["transitions"])


# ---- node work, in process ----


async def recorded_calls(functions: NodeFunctions, text: str, session_id: str) -> list[NodeCall]:
    """One turn of `text` through the baseline's graph, in this process and without a checkpointer: the node
    functions it called, in order, with their requests (built as the workflow builds them) and results."""
    calls: list[NodeCall] = []
    graph = build_graph(functions.recording(calls)).compile()
    await graph.ainvoke(initial_state(session_id, UserInput(text=text), [], None))
    return calls


@dataclass(frozen=True)
class NodeWork:
    """Median wall time of each node function on a run's inputs, called directly in this process."""

    per_node_ms: dict[str, float]
    repetitions: int

    @property
    def total_ms(self) -> float:
        return sum(self.per_node_ms.values())


class NodeTimer:
    """Times the node functions on a run's requests, in order, one round at a time (so rounds can be spread
    between the runs they are compared with, and drift in the machine's speed hits both alike)."""

    def __init__(self, calls: Sequence[NodeCall], functions: NodeFunctions) -> None:
        self._calls = list(calls)
        self._by_name = functions.by_activity()
        self._samples: dict[str, list[float]] = {f"{i + 1}. {c.name}": [] for i, c in enumerate(self._calls)}

    async def round(self, *, keep: bool = True) -> None:
        """One call of each node function; `keep=False` for a warm-up round."""
        for label, call in zip(self._samples, self._calls, strict=True):
            started = time.perf_counter()
            await self._by_name[call.name](call.request)
            if keep:
                self._samples[label].append((time.perf_counter() - started) * 1000)

    def result(self) -> NodeWork:
        rounds = min((len(v) for v in self._samples.values()), default=0)
        return NodeWork({k: statistics.median(v) for k, v in self._samples.items() if v}, rounds)
