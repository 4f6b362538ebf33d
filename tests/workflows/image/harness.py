"""Runs image-agent workflows on the time-skipping server with a fresh task queue and worker per test.

Doubles are only ever passed for external services (image API, LLM, vector store, object storage);
every activity and workflow under test is the real one.
"""

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from temporalio import activity
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.image_provider import ImageProvider
from api.streaming import run_events
from models.agent import AgentState, MaskRef, PreviousResult, UserInput
from models.events import AgentEvent
from models.runs import ImageAgentInput
from models.settings import Settings
from runtime.llm_client import build_llm_client
from stores.blob_store import LocalBlobStore
from stores.style_store import StyleStore
from tests.llm.answers import llm_settings
from worker import build_activities, build_worker
from workflows.image_agent import ImageAgentWorkflow
from workflows.image_agent_graph import GRAPH


def assert_declared(transitions: list[tuple[str, str]]) -> None:
    """ARCHITECTURE rule 7: every transition a run records is a declared edge of its graph."""
    undeclared = [edge for edge in transitions if not GRAPH.has_edge(*edge)]
    assert not undeclared, f"transitions not declared in the graph: {undeclared}"


@dataclass
class Outcome:
    state: AgentState
    events: list[AgentEvent]
    handle: WorkflowHandle[Any, Any]

    def of_type(self, type_: str) -> list[AgentEvent]:
        return [e for e in self.events if e.type == type_]

    @property
    def error_code(self) -> str | None:
        errors = self.of_type("error")
        return errors[-1].data["code"] if errors else None

    @property
    def path(self) -> list[str]:
        """Nodes visited, in order."""
        return [target for _, target in self.state.metadata.transitions]


@dataclass
class Harness:
    env: WorkflowEnvironment
    settings: Settings
    blobs: LocalBlobStore
    runs: int = field(default=0)
    sessions: set[str] = field(default_factory=set)
    """Session workflows this test started; terminated at teardown so no timer of theirs outlives the worker."""
    llm_attempts: list["LlmAttempt"] = field(default_factory=list)

    async def run(
        self,
        text: str,
        *,
        mask: MaskRef | None = None,
        previous: PreviousResult | None = None,
        deadline_seconds: float = 60.0,
    ) -> Outcome:
        handle = await self.start(text, mask=mask, previous=previous, deadline_seconds=deadline_seconds)
        state = await handle.result()
        return Outcome(state=state, events=await collect_events(self, handle.id), handle=handle)

    async def start(
        self,
        text: str,
        *,
        mask: MaskRef | None = None,
        previous: PreviousResult | None = None,
        deadline_seconds: float = 60.0,
    ) -> WorkflowHandle[Any, AgentState]:
        self.runs += 1
        return await self.env.client.start_workflow(
            ImageAgentWorkflow.run,
            ImageAgentInput(
                session_id="test",
                turn=self.runs,
                user_input=UserInput(text=text, mask_data=mask),
                previous=previous,
                deadline_seconds=deadline_seconds,
            ),
            id=f"image-test-{uuid.uuid4().hex[:8]}",
            task_queue=self.settings.task_queue,
        )


async def collect_events(harness: Harness, run_id: str) -> list[AgentEvent]:
    return [event async for event in run_events(harness.env.client, run_id)]


def settings_for(data_dir: Path, **fields: Any) -> Settings:
    return Settings(data_dir=data_dir, task_queue=f"tq-{uuid.uuid4().hex[:8]}", _env_file=None, **fields)  # type: ignore[call-arg]


@dataclass(frozen=True)
class LlmAttempt:
    """One LLM request an activity sent: which activity, which attempt, when it started on the workflow clock."""

    activity: str
    attempt: int
    started: datetime


@asynccontextmanager
async def agent_harness(
    env: WorkflowEnvironment,
    data_dir: Path,
    style_store: StyleStore,
    *,
    image_provider: ImageProvider | None = None,
    llm_base_url: str | None = None,
    blobs: LocalBlobStore | None = None,
    rag_store: StyleStore | None = None,
) -> AsyncIterator[Harness]:
    """`llm_base_url`: configure the worker's LLM as an OpenAI-compatible server there (the loopback server)."""
    settings = settings_for(data_dir, **(llm_settings(llm_base_url) if llm_base_url else {}))
    blobs = blobs or LocalBlobStore(settings.blob_dir)
    llm_attempts: list[LlmAttempt] = []

    async def record_attempt(request: httpx.Request) -> None:
        info = activity.info()
        llm_attempts.append(LlmAttempt(info.activity_type, info.attempt, info.started_time))

    async with httpx.AsyncClient(event_hooks={"request": [record_attempt]}) as http:
        activities = build_activities(
            settings,
            blobs=blobs,
            image_provider=image_provider,
            llm=build_llm_client(settings, http),
            style_store=rag_store or style_store,
        )
        harness = Harness(env=env, settings=settings, blobs=blobs, llm_attempts=llm_attempts)
        async with build_worker(env.client, settings, activities):
            try:
                yield harness
            finally:
                await terminate_running(env.client, harness.sessions)


async def terminate_running(client: Client, workflow_ids: set[str]) -> None:
    """The time-skipping server stops its clock while a workflow task waits for a worker: end leftovers."""
    for workflow_id in workflow_ids:
        handle = client.get_workflow_handle(workflow_id)
        if (await handle.describe()).status == WorkflowExecutionStatus.RUNNING:
            await handle.terminate("test finished")
