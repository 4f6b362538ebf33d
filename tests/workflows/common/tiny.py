"""Tiny workflows and one activity that exercise the shared run machinery the way a family would use it: a graph
walk (`GraphProbeWorkflow`), a question and its answer (`AskWorkflow`), an event log across continue-as-new
(`CountingWorkflow`). Registered as the family `test` (`TINY_WORKFLOWS`)."""

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from temporalio import activity, workflow
from temporalio.exceptions import ApplicationError

from workflows.common.event_log import EventLog
from workflows.common.graph import START, Edge, Graph
from workflows.common.human_input import HumanInput
from workflows.common.registration import RegisteredWorkflow
from workflows.common.run import GraphRun, NodeFailed
from workflows.policies import NodeOptions

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode
    from models.events import RunEnd, RunStatus
    from models.human_input import InputOption
    from tests.workflows.common.tiny_models import (
        ECHO,
        TINY_EVENTS,
        AskInput,
        CountInput,
        EchoRequest,
        EchoResult,
        Note,
        ProbeInput,
        TinyState,
    )

END = "end"
ECHO_OPTIONS = NodeOptions(start_to_close=timedelta(seconds=5))
CPU_ECHO_OPTIONS = NodeOptions(start_to_close=timedelta(seconds=2), cpu_bound=True)
CPU_FAN_OUT = 4
"""`cpu_fan_out` asks this many CPU-bound echoes at once, each with `CPU_WORK_SECONDS` of blocking work: together
longer than one's start-to-close on one thread."""
CPU_WORK_SECONDS = 0.8
FAN_OUT = 6
"""`fan_out` asks this many echoes at once on the family's own queue (more than the SDK's default of 3 eager)."""

PROBE_GRAPH = Graph(
    name="GraphProbeWorkflow",
    nodes={START: "start", "a": "A", "b": "B", "fail": "Fail", END: "end"},
    edges=(
        Edge(START, "a"),
        Edge("a", "b"),
        Edge("a", "fail"),
        Edge("b", END),
        Edge("fail", END),
    ),
    end=END,
)
ASK_GRAPH = Graph(
    name="AskWorkflow",
    nodes={START: "start", "ask": "Ask", "fail": "Fail", END: "end"},
    edges=(Edge(START, "ask"), Edge("ask", END), Edge("ask", "fail"), Edge("fail", END)),
    end=END,
)


class Echo:
    """The tiny activity: answers with its text, or fails for good; its blocking work runs on one thread (a
    machine with one core for renders), and it says where it ran and how many attempts ran beside it."""

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="echo")
        self._running = 0

    @ECHO.defn
    async def echo(self, request: EchoRequest) -> EchoResult:
        if request.fail:
            raise ApplicationError("echo refused", type=ErrorCode.EXECUTION_FAILED, non_retryable=True)
        self._running += 1
        at_once = self._running
        try:
            if request.blocking_seconds:
                await asyncio.get_running_loop().run_in_executor(self._thread, time.sleep, request.blocking_seconds)
        finally:
            self._running -= 1
        info = activity.info()
        return EchoResult(text=request.text, task_queue=info.task_queue, attempt=info.attempt, running_at_once=at_once)


@workflow.defn
class GraphProbeWorkflow:
    """start → a → b → end, with a failure node; the first node misbehaves as its input says."""

    @workflow.init
    def __init__(self, input: ProbeInput) -> None:
        self._input = input
        self._state = TinyState()
        self._events = EventLog(TINY_EVENTS)
        self._run = GraphRun(PROBE_GRAPH, self._events, self._state, error_node="fail")

    @workflow.query(name="state")
    def state(self) -> TinyState:
        return self._state

    @workflow.run
    async def run(self, input: ProbeInput) -> RunStatus:
        steps = {"a": self._a, "b": self._b, "fail": self._fail}
        return await self._run.execute(steps, first="a", deadline=timedelta(seconds=input.deadline_seconds))

    async def _a(self) -> str:
        behaviour = self._input.behaviour
        if behaviour == "undeclared":
            return END
        if behaviour == "crash":
            raise ValueError("a bug in node a")
        if behaviour == "slow":
            await workflow.sleep(timedelta(hours=1))
        if behaviour == "cpu_fan_out":
            return await self._cpu_fan_out()
        if behaviour == "fan_out":
            requests = [EchoRequest(text=f"echo {i}") for i in range(FAN_OUT)]
            await asyncio.gather(*(self._run.call(ECHO, r, ECHO_OPTIONS, summary=r.text) for r in requests))
        if behaviour in ("activity_ok", "activity_fails"):
            request = EchoRequest(text="hello", fail=behaviour == "activity_fails")
            try:
                echoed = await self._run.call(ECHO, request, ECHO_OPTIONS, summary="echo hello")
            except NodeFailed as err:
                return self._run.fail(err, ErrorCode.UNKNOWN_ERROR)
            self._events.emit("note", "a", Note(text=echoed.text))
        return "b"

    async def _cpu_fan_out(self) -> str:
        """`CPU_FAN_OUT` CPU-bound echoes at once; a note per echo says where and how it ran."""
        requests = [EchoRequest(text=f"cpu {i}", blocking_seconds=CPU_WORK_SECONDS) for i in range(CPU_FAN_OUT)]
        echoed = await asyncio.gather(
            *(self._run.call(ECHO, request, CPU_ECHO_OPTIONS, summary=request.text) for request in requests)
        )
        for result in echoed:
            note = f"{result.text} on {result.task_queue}, attempt {result.attempt}, {result.running_at_once} at once"
            self._events.emit("note", "a", Note(text=note))
        return "b"

    async def _b(self) -> str:
        self._events.emit("note", "b", Note(text="b ran"))
        return END

    async def _fail(self) -> str:
        assert self._state.error is not None
        self._events.emit("note", "fail", Note(text=f"failed: {self._state.error.code}"))
        return END


@workflow.defn
class AskWorkflow:
    """Asks one question through the shared helper and ends when it is answered or expires."""

    @workflow.init
    def __init__(self, input: AskInput) -> None:
        self._input = input
        self._state = TinyState()
        self._events = EventLog(TINY_EVENTS)
        self._human = HumanInput(self._events)
        self._run = GraphRun(ASK_GRAPH, self._events, self._state, error_node="fail")

    @workflow.query(name="state")
    def state(self) -> TinyState:
        return self._state.model_copy(update={"awaiting_input": self._human.awaiting})

    @workflow.run
    async def run(self, input: AskInput) -> RunStatus:
        return await self._run.execute({"ask": self._ask, "fail": self._fail}, first="ask", deadline=None)

    async def _ask(self) -> str:
        options = [InputOption(id=option, label=option.title()) for option in self._input.options]
        answer = await self._human.ask(
            "ask",
            self._input.prompt,
            options,
            timeout=timedelta(seconds=self._input.timeout_seconds),
            allow_free_text=self._input.allow_free_text,
        )
        if answer is not None:
            self._state.answer = answer.answer
            self._events.emit("note", "ask", Note(text=f"you chose {answer.answer}"))
        if self._input.linger_seconds:
            await workflow.sleep(timedelta(seconds=self._input.linger_seconds))
        return END

    async def _fail(self) -> str:
        return END


@workflow.defn
class CountingWorkflow:
    """Writes `per_run` notes, then continues-as-new carrying its event log, `runs` times; then ends."""

    @workflow.init
    def __init__(self, input: CountInput) -> None:
        self._events = EventLog(TINY_EVENTS, input.events)

    @workflow.query(name="state")
    def state(self) -> TinyState:
        return TinyState()

    @workflow.run
    async def run(self, input: CountInput) -> int:
        for index in range(input.per_run):
            self._events.emit("note", "count", Note(text=f"run {input.done_runs} note {index}"))
            await workflow.sleep(timedelta(seconds=1))
        if input.done_runs + 1 < input.runs:
            await self._events.continue_as_new(
                lambda events: [input.model_copy(update={"done_runs": input.done_runs + 1, "events": events})]
            )
        self._events.emit("done", END, RunEnd(status="completed"))
        return self._events.next_seq


TINY_WORKFLOWS = [
    RegisteredWorkflow(GraphProbeWorkflow, "test", "graph walk probe", TinyState, TINY_EVENTS, ProbeInput, PROBE_GRAPH),
    RegisteredWorkflow(AskWorkflow, "test", "asks one question", TinyState, TINY_EVENTS, AskInput, ASK_GRAPH, True),
    RegisteredWorkflow(CountingWorkflow, "test", "counts across continue-as-new", TinyState, TINY_EVENTS, CountInput),
]
TINY_ACTIVITIES = {"test": [Echo().echo]}
