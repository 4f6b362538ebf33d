"""The app builder's workflow test harness: `AppBuilderWorkflow` runs on the test's own task queue (over
`tests.workflows.harness`).

Doubles stand in only for outside services (the LLM, through the loopback server); every workflow and activity
under test is the real one, the workspace lives in the test's own blob store. `task_delay` delays each execution
task's activity in the worker (an interceptor around the real activity), so tasks of one wave visibly overlap
or a test has time to act while they run; every task activity's start and end are recorded.
"""

import asyncio
import base64
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.client import WorkflowHandle, WorkflowHistory
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)

from models.app_builder.agents import AppBrief
from models.app_builder.rounds import AppRoundBase
from models.app_builder.runs import AppRunInput, AppRunResult
from models.app_builder.state import AppBuilderState
from models.settings import Settings
from stores.app_workspace import read_files
from stores.blob_store import BlobStore
from tests.workflows.harness import FamilyHarness, RunOutcome, running_family
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
class AppOutcome(RunOutcome[AppRunResult, AppBuilderState]):
    """A finished run: its result, its state (queried), its events (streamed) and its files."""

    files: dict[str, str] = field(default_factory=dict)


@dataclass
class AppHarness(FamilyHarness):
    """Starts app runs on the test's own task queue."""

    blobs: BlobStore = field(kw_only=True)
    timer: TaskTimer = field(kw_only=True)

    family = "app_builder"
    graph = GRAPH
    state_model = AppBuilderState

    async def start(
        self, message: str = TODO_APP, base: AppRoundBase | None = None
    ) -> WorkflowHandle[AppBuilderWorkflow, AppRunResult]:
        """A run of `message`; with `base`, a follow-up round of that run."""
        brief = AppBrief(message=message, earlier_messages=base.messages if base else [])
        run_input = AppRunInput(
            owner="tester", brief=brief, llm_configured=self.settings.llm_provider is not None, base=base
        )
        return await self.start_run(AppBuilderWorkflow.run, run_input, id_prefix="app-test")

    async def run(self, message: str = TODO_APP, base: AppRoundBase | None = None) -> AppOutcome:
        return await self.finish(await self.start(message, base))

    async def finish(self, handle: WorkflowHandle[Any, Any]) -> AppOutcome:
        """The run's outcome with the files its workspace holds."""
        outcome = await self.outcome(handle, AppOutcome)
        outcome.files = await asyncio.to_thread(read_files, self.blobs, outcome.state.workspace)
        return outcome


@asynccontextmanager
async def app_harness(
    env: WorkflowEnvironment, data_dir: Path, *, llm_base_url: str | None = None, task_delay: float = 0.0
) -> AsyncIterator[AppHarness]:
    """A worker for every family on fresh task queues; `llm_base_url` makes the loopback server the LLM."""
    timer = TaskTimer(delay=task_delay)

    def harness(settings: Settings, blobs: BlobStore) -> AppHarness:
        return AppHarness(env, settings, blobs=blobs, timer=timer)

    async with running_family(env, data_dir, harness, llm_base_url=llm_base_url, interceptors=[timer]) as running:
        yield running


def payload_text(history: WorkflowHistory) -> str:
    """Every payload of `history` decoded (Temporal's JSON keeps them base64): what the history really carries."""
    texts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            data = value.get("data")
            if isinstance(data, str) and isinstance(value.get("metadata"), dict):
                texts.append(base64.b64decode(data).decode("utf-8", errors="replace"))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(history.to_json_dict())
    return "\n".join(texts)
