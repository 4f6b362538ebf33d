"""Runs `AppBuilderWorkflow` on a Temporal test server with a fresh task queue and worker per test.

Doubles stand in only for outside services (the LLM, through the loopback server); every workflow and activity
under test is the real one, the workspace lives in the test's own blob store. `slow_tasks` delays each execution
task's activity in the worker (an interceptor around the real activity), so tasks of one wave visibly overlap
or a test has time to act while they run; every task activity's start and end are recorded.
"""

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from temporalio import activity
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)

from api.streaming import run_events
from models.app_builder.agents import AppBrief
from models.app_builder.runs import AppRunInput, AppRunResult
from models.app_builder.state import AppBuilderState
from models.events import RunEvent
from models.settings import Settings
from runtime.llm_client import build_llm_client
from stores.app_workspace import read_files
from stores.blob_store import LocalBlobStore
from tests.workflows.image.harness import outside_services, settings_for, terminate_running
from tests.workflows.outcomes import StreamedEvents
from worker import build_activities, running_workers
from workflows.app_builder.graph import GRAPH
from workflows.app_builder.workflow import AppBuilderWorkflow

TODO_APP = "做一个待办事项应用：可以添加、完成和删除待办，并按状态筛选"


@dataclass(frozen=True)
class Span:
    """One task activity's attempt in the worker: when it started and ended (wall clock)."""

    activity: str
    task_id: str
    attempt: int
    start: float
    end: float


@dataclass
class TaskTimer(Interceptor):
    """Records (and, with `delay`, slows) every execution task's activity."""

    delay: float = 0.0
    spans: list[Span] = field(default_factory=list)

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        timer = self

        class Timed(ActivityInboundInterceptor):
            async def execute_activity(self, input: ExecuteActivityInput) -> Any:
                info = activity.info()
                if not info.activity_type.endswith("_agent"):
                    return await super().execute_activity(input)
                start = time.perf_counter()
                await asyncio.sleep(timer.delay)
                try:
                    return await super().execute_activity(input)
                finally:
                    task_id = input.args[0].task.id if input.args else "?"
                    timer.spans.append(Span(info.activity_type, task_id, info.attempt, start, time.perf_counter()))

        return Timed(next)


@dataclass
class AppOutcome(StreamedEvents):
    """A finished run: its result, its state (queried), its events (streamed) and its files."""

    result: AppRunResult
    state: AppBuilderState
    events: list[RunEvent]
    files: dict[str, str]
    handle: WorkflowHandle[Any, Any]

    @property
    def path(self) -> list[str]:
        return [target for _, target in self.state.graph.transitions]


@dataclass
class AppHarness:
    """Starts app runs on the test's own task queue."""

    env: WorkflowEnvironment
    settings: Settings
    blobs: LocalBlobStore
    timer: TaskTimer
    started: set[str] = field(default_factory=set)

    async def start(self, message: str = TODO_APP) -> WorkflowHandle[AppBuilderWorkflow, AppRunResult]:
        run_id = f"app-test-{uuid.uuid4().hex[:10]}"
        self.started.add(run_id)
        return await self.env.client.start_workflow(
            AppBuilderWorkflow.run,
            AppRunInput(
                owner="tester", brief=AppBrief(message=message), llm_configured=self.settings.llm_provider is not None
            ),
            id=run_id,
            task_queue=self.settings.task_queue("app_builder"),
        )

    async def run(self, message: str = TODO_APP) -> AppOutcome:
        return await self.finish(await self.start(message))

    async def finish(self, handle: WorkflowHandle[Any, Any]) -> AppOutcome:
        result = await handle.result()
        state = await handle.query(AppBuilderWorkflow.state)
        events = [event async for event in run_events(self.env.client, handle.id)]
        undeclared = GRAPH.undeclared(state.graph.transitions)
        assert not undeclared, f"transitions not declared in the graph: {undeclared}"
        files = await asyncio.to_thread(read_files, self.blobs, state.workspace)
        return AppOutcome(result=result, state=state, events=events, files=files, handle=handle)


@asynccontextmanager
async def app_harness(
    env: WorkflowEnvironment, data_dir: Path, *, llm_base_url: str | None = None, task_delay: float = 0.0
) -> AsyncIterator[AppHarness]:
    """A worker for every family on fresh task queues; `llm_base_url` makes the loopback server the LLM."""
    settings = settings_for(data_dir, **outside_services(llm_base_url))
    blobs = LocalBlobStore(settings.blob_dir)
    timer = TaskTimer(delay=task_delay)
    async with httpx.AsyncClient() as http:
        activities = build_activities(settings, blobs=blobs, llm=build_llm_client(settings, http))
        harness = AppHarness(env=env, settings=settings, blobs=blobs, timer=timer)
        async with running_workers(env.client, settings, activities, interceptors=[timer]):
            try:
                yield harness
            finally:
                await terminate_running(env.client, harness.started)
