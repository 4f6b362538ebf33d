"""The run machinery every family shares: walk a declared graph, one node at a time, to its end.

A family's workflow declares its nodes (each a coroutine that does its work and names the next node), its graph
and its routing; `GraphRun` does the rest:

- every transition is recorded in the run's `GraphPosition` and refused when the graph does not declare it;
- activities run through `call()`, with the node's declared options from `workflows.policies` and a `summary=`
  for the Web UI (a CPU-bound node on its family's CPU queue), and a cancelled run stays cancelled (a cancelled
  activity is not a node failure to degrade);
- a node's activity failure becomes the run's `ErrorInfo` with a user-facing code: `call_or_fail()` raises
  `RunFailed`, which ends the node at the error node (`fail()` and `fail_with()` do the same for a node that
  returns its next node itself); `call_with_degrade()` tries the LLM path, says so through the family's own
  event when it failed for good, and runs the offline path instead; `report_error()` is the error node's event;
- the run's deadline is a workflow timer: when it fires, or the run is cancelled, the node in flight is
  cancelled and the run ends through the family's error node (ARCHITECTURE rule 3); an unexpected exception in a
  node does the same with INTERNAL_ERROR instead of leaving a workflow task failing forever;
- the run ends with the family's terminal event (`RunEnd`) and the `RunStatus` search attribute.
"""

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel
from temporalio import workflow
from temporalio.common import SearchAttributeUpdate
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError, FailureError, TimeoutType
from temporalio.exceptions import TimeoutError as NodeTimeoutError

from workflows.common.event_log import EventLog
from workflows.common.graph import Graph
from workflows.common.patches import patched
from workflows.policies import NodeOptions, cpu_task_queue

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode, ErrorInfo, is_error_code
    from models.events import RunEnd, RunStatus
    from models.nodes import ActivitySpec
    from models.runs import GraphPosition
    from models.search_attributes import RUN_STATUS

InputT = TypeVar("InputT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)

CPU_QUEUE = "cpu-bound-nodes-on-the-cpu-queue"
"""Patch: a CPU-bound node (`NodeOptions.cpu_bound`) is scheduled on its family's CPU queue; before it, on the
workflow's own queue (histories recorded then replay there)."""

NodeStep = Callable[[], Awaitable[str]]
"""A node: does its work and returns the id of the next node."""


async def run_activity(
    spec: ActivitySpec[InputT, ResultT],
    request: InputT,
    options: NodeOptions,
    *,
    summary: str,
    activity_id: str | None = None,
) -> ResultT:
    """Run one activity with its declared options: a local activity when they say so, else a regular one. Raises
    Temporal's own errors; `GraphRun.call` turns them into a node's failure."""
    execute = workflow.execute_local_activity if options.local else workflow.execute_activity
    kwargs = options.kwargs()
    if options.cpu_bound and (not options.queue_marker or patched(CPU_QUEUE)):
        kwargs["task_queue"] = cpu_task_queue(workflow.info().task_queue)
    result: ResultT = await execute(
        spec.name, request, result_type=spec.result, summary=summary, activity_id=activity_id, **kwargs
    )
    return result


class NodeFailed(Exception):
    """A node's activity failed for good (every attempt, or its budget, spent); `cause` is Temporal's failure:
    an `ApplicationError` (with the activity's error type), a `TimeoutError`, or another `FailureError`."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause

    @property
    def code(self) -> str | None:
        """The error code a permanent failure carries (its `ApplicationError` type)."""
        return self.cause.type if isinstance(self.cause, ApplicationError) else None

    def what_happened(self) -> str:
        """The failure in a few words for a person: a worker that stopped answering (a heartbeat timeout) is not
        a model that failed, and a timeout is not an error the model sent."""
        cause = self.cause
        if isinstance(cause, NodeTimeoutError):
            if cause.type == TimeoutType.HEARTBEAT:
                return "执行它的 worker 停止了响应（心跳超时，worker 可能已退出）"
            return "超时（重试后仍未完成）"
        if isinstance(cause, ApplicationError):
            return f"LLM 调用失败：{cause.message}"
        return f"失败：{cause}"

    def error_info(self, node: str, default: StrEnum) -> ErrorInfo:
        """The failure as a person should read it. A non-retryable failure whose type is one of our codes (the
        platform's or a family's: `is_error_code`) keeps its code and message (they are written
        for a person); a timeout or any other failure gets `default` and a sentence naming the node."""
        cause = self.cause
        if isinstance(cause, ApplicationError) and is_error_code(cause.type):
            return ErrorInfo(code=cause.type, message=cause.message, node=node)
        if isinstance(cause, NodeTimeoutError):
            return ErrorInfo(code=default, message=f"{node} 节点超时（重试后仍未完成）", node=node)
        message = cause.message if isinstance(cause, ApplicationError) else str(cause or self)
        return ErrorInfo(code=default, message=f"{node} 节点失败：{message}", node=node)


class RunFailed(Exception):
    """A node cannot go on: the run ends through its error node with `error` (raised by `GraphRun.call_or_fail`,
    or by a node itself; `GraphRun` catches it between nodes)."""

    def __init__(self, error: ErrorInfo) -> None:
        super().__init__(error.message)
        self.error = error


class RunRecord(Protocol):
    """What the machinery reads and writes in a family's state: its place in the graph and its error."""

    @property
    def position(self) -> GraphPosition: ...

    error: ErrorInfo | None


class GraphRun:
    """Drives one run of a declared graph; a family's workflow holds one and calls `execute` from its run."""

    def __init__(self, graph: Graph, events: EventLog, record: RunRecord, *, error_node: str) -> None:
        if error_node not in graph.nodes:
            raise ValueError(f"graph {graph.name}: error node {error_node!r} is not declared")
        self.graph = graph
        self.events = events
        self._record = record
        self._error_node = error_node
        self._tags: list[SearchAttributeUpdate[Any]] = []

    @property
    def node(self) -> str:
        return self._record.position.current_node

    async def execute(
        self,
        steps: Mapping[str, NodeStep],
        *,
        first: str,
        deadline: timedelta | None,
        ready: Callable[[], bool] | None = None,
    ) -> RunStatus:
        """Walk from `first` to the graph's end; `ready`, when given, is waited for before the deadline starts
        (a queued run waits for its turn). Re-raises cancellation after the run has ended through its error
        node, so the workflow closes as cancelled."""
        try:
            if ready is not None:
                self.events.publish()
                await workflow.wait_condition(ready)
        except asyncio.CancelledError:
            await self._end_through_error_node(steps, ErrorCode.CANCELLED, "任务已取消")
            self.finish("cancelled")
            raise
        walk = asyncio.create_task(self._walk(steps, first))
        try:
            await workflow.wait_condition(walk.done, timeout=deadline)
        except TimeoutError:
            seconds = deadline.total_seconds() if deadline else 0
            await self._abort(walk, steps, ErrorCode.WORKFLOW_TIMEOUT, f"任务超时：单次运行最长 {seconds:g} 秒")
            self.finish("timeout")
            return "timeout"
        except asyncio.CancelledError:
            await self._abort(walk, steps, ErrorCode.CANCELLED, "任务已取消")
            self.finish("cancelled")
            raise
        walk.result()
        status: RunStatus = "failed" if self._record.error else "completed"
        self.finish(status)
        return status

    async def call(
        self,
        spec: ActivitySpec[InputT, ResultT],
        request: InputT,
        options: NodeOptions,
        *,
        summary: str,
        activity_id: str | None = None,
    ) -> ResultT:
        """Run one node's activity (local or not, as its options declare), under `activity_id` when the family
        names its activities (else Temporal numbers them). Raises `NodeFailed` when it failed for good; a
        cancelled run stays cancelled (that is not a node failure a family could degrade)."""
        if not options.local:  # this workflow task ends while the activity runs: readers see the events so far
            self.events.publish()
        try:
            result = await run_activity(spec, request, options, summary=summary, activity_id=activity_id)
        except ActivityError as err:
            if isinstance(err.cause, CancelledError):
                raise asyncio.CancelledError() from err
            raise NodeFailed(err.cause or err) from err
        except CancelledError as err:
            raise asyncio.CancelledError() from err
        except FailureError as err:  # a local activity's last failure arrives unwrapped after timer-based retries
            raise NodeFailed(err) from err
        return result

    async def call_or_fail(
        self,
        spec: ActivitySpec[InputT, ResultT],
        request: InputT,
        options: NodeOptions,
        *,
        summary: str,
        code: StrEnum,
        activity_id: str | None = None,
    ) -> ResultT:
        """`call`, and when the activity failed for good the run ends through its error node with `code` (or the
        failure's own code: `NodeFailed.error_info`)."""
        try:
            return await self.call(spec, request, options, summary=summary, activity_id=activity_id)
        except NodeFailed as err:
            raise RunFailed(err.error_info(self.node, code)) from err

    async def call_with_degrade(
        self,
        spec: ActivitySpec[InputT, ResultT],
        request: InputT,
        options: NodeOptions,
        *,
        summary: str,
        offline: InputT,
        offline_options: NodeOptions,
        offline_summary: str,
        degraded: Callable[[NodeFailed], None],
        code: StrEnum,
        use_llm: bool = True,
    ) -> ResultT:
        """The LLM path first (`request`, when `use_llm`: a model is configured); when it failed for good,
        `degraded` emits the family's event that says so and the offline path (`offline`, the same activity without
        the model) answers instead, as it does at once without a model. When that fails too, the run ends through
        its error node with `code`."""
        if use_llm:
            try:
                return await self.call(spec, request, options, summary=summary)
            except NodeFailed as err:
                degraded(err)
        return await self.call_or_fail(spec, offline, offline_options, summary=offline_summary, code=code)

    def report_error(self, node: str) -> ErrorInfo:
        """The error node's event: the run's error (UNKNOWN_ERROR if it has none) as an `error` event at `node`."""
        error = self._record.error or ErrorInfo(code=ErrorCode.UNKNOWN_ERROR, message="未知错误", node="unknown")
        self.events.emit("error", node, error)
        return error

    def fail(self, err: NodeFailed, default: StrEnum) -> str:
        """Record a node's activity failure as the run's error (`NodeFailed.error_info`), go to the error node."""
        return self.fail_with(err.error_info(self.node, default))

    def fail_with(self, error: ErrorInfo) -> str:
        """Record `error` as the run's error and go to the error node."""
        self._record.error = error
        return self._error_node

    def tag(self, *updates: SearchAttributeUpdate[Any]) -> None:
        """Search attributes to set when the run ends, with its `RunStatus` (one history event for all of them)."""
        self._tags.extend(updates)

    def finish(self, status: RunStatus) -> None:
        """The terminal event, the search attributes (`RunStatus` and the run's tags) and the last events published:
        the last things a run does."""
        workflow.upsert_search_attributes([*self._tags, RUN_STATUS.value_set(status)])
        self.events.emit(self.events.catalog.terminal, self.graph.end, RunEnd(status=status, error=self._record.error))
        self.events.publish()

    async def _walk(self, steps: Mapping[str, NodeStep], first: str) -> None:
        node = self._goto(first)
        while node != self.graph.end:
            try:
                node = self._goto(await steps[node]())
            except RunFailed as failed:
                if node == self._error_node:
                    raise
                node = self._goto(self.fail_with(failed.error))
            except workflow.NondeterminismError:
                raise  # fails the workflow task: a code change to fix, after which the run replays and goes on
            except Exception as exc:
                if node == self._error_node:
                    raise
                # A bug (an exception, an undeclared transition): end through the error path rather than leave
                # the workflow task failing forever.
                workflow.logger.exception("node %s failed unexpectedly", node)
                code = exc.type if isinstance(exc, ApplicationError) and exc.type else ErrorCode.INTERNAL_ERROR
                error = ErrorInfo(code=code, message=f"{node} 节点内部错误：{exc}", node=node)
                node = self._goto(self.fail_with(error), checked=False)

    async def _abort(
        self, walk: asyncio.Task[None], steps: Mapping[str, NodeStep], code: ErrorCode, message: str
    ) -> None:
        """End a run that is still in a node (deadline or cancel) through the error node."""
        walk.cancel()
        await workflow.wait([walk])
        await self._end_through_error_node(steps, code, message)

    async def _end_through_error_node(self, steps: Mapping[str, NodeStep], code: ErrorCode, message: str) -> None:
        self._record.error = ErrorInfo(code=code, message=message, node=self.node)
        self._goto(self._error_node, checked=False)
        self._goto(await steps[self._error_node](), checked=False)

    def _goto(self, node: str, *, checked: bool = True) -> str:
        position = self._record.position
        source = position.current_node
        if checked and not self.graph.has_edge(source, node):
            raise ApplicationError(
                f"{self.graph.name}: transition {source} → {node} is not a declared edge",
                type=ErrorCode.UNDECLARED_TRANSITION,
                non_retryable=True,
            )
        position.transitions.append((source, node))
        position.current_node = node
        workflow.set_current_details(f"node: **{node}**")
        return node
