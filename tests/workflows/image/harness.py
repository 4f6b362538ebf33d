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

from activities.image.image_provider import ImageProvider
from api.streaming import run_events
from models.events import RunEvent
from models.image.runs import ImageAgentInput, ImageTurnResult, TurnContext
from models.image.state import ImageAgentState, MaskRef, PreferredModel, PreviousResult, UserInput
from models.settings import Settings
from runtime.llm_client import build_llm_client
from stores.blob_store import LocalBlobStore
from stores.style_store import StyleStore
from tests.llm.answers import llm_settings
from tests.workflows.image.dashscope_double import dashscope_settings
from tests.workflows.outcomes import StreamedEvents
from worker import build_activities, running_workers
from workflows.image.graph import GRAPH
from workflows.image.workflow import ImageAgentWorkflow


def assert_declared(transitions: list[tuple[str, str]]) -> None:
    """ARCHITECTURE rule 7: every transition a run records is a declared edge of its graph."""
    undeclared = GRAPH.undeclared(transitions)
    assert not undeclared, f"transitions not declared in the graph: {undeclared}"


@dataclass
class Outcome(StreamedEvents):
    """A finished run: its state (queried), its events (streamed) and its handle."""

    state: ImageAgentState
    result: ImageTurnResult
    events: list[RunEvent]
    handle: WorkflowHandle[Any, Any]

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
    """Starts image-agent runs on the test's own task queue and collects what they did."""

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
        preferred_model: PreferredModel | None = None,
        allow_fallback: bool | None = None,
    ) -> Outcome:
        handle = await self.start(
            text,
            mask=mask,
            previous=previous,
            deadline_seconds=deadline_seconds,
            preferred_model=preferred_model,
            allow_fallback=allow_fallback,
        )
        result = await handle.result()
        state = await handle.query(ImageAgentWorkflow.state)
        return Outcome(state=state, result=result, events=await collect_events(self, handle.id), handle=handle)

    async def start(
        self,
        text: str,
        *,
        mask: MaskRef | None = None,
        previous: PreviousResult | None = None,
        deadline_seconds: float = 60.0,
        preferred_model: PreferredModel | None = None,
        allow_fallback: bool | None = None,
    ) -> WorkflowHandle[ImageAgentWorkflow, ImageTurnResult]:
        self.runs += 1
        return await self.env.client.start_workflow(
            ImageAgentWorkflow.run,
            ImageAgentInput(
                session_id="test",
                turn=self.runs,
                user_input=UserInput(
                    text=text, mask_data=mask, preferred_model=preferred_model, allow_fallback=allow_fallback
                ),
                context=TurnContext(previous=previous),
                deadline_seconds=deadline_seconds,
                llm_configured=self.settings.llm_provider is not None,
                hosted_models=self.settings.hosted_image_models,
                direct_models=self.settings.direct_image_models,
                default_model=self.settings.default_image_model,
            ),
            id=f"image-test-{uuid.uuid4().hex[:8]}",
            task_queue=self.settings.task_queue("image"),
        )


async def collect_events(harness: Harness, run_id: str) -> list[RunEvent]:
    return [event async for event in run_events(harness.env.client, run_id)]


def openai_images_settings(base_url: str) -> dict[str, Any]:
    """Settings fields that make OpenAI Images at `base_url` the default image model (`gpt-image-1`)."""
    return {"openai_api_key": "sk-test-openai", "image_provider_default": "openai", "openai_image_base_url": base_url}


def outside_services(
    llm_base_url: str | None, image_api_url: str | None = None, openai_images_url: str | None = None
) -> dict[str, Any]:
    """Settings fields that put the LLM, DashScope's image API and OpenAI Images (each when given) at those URLs."""
    fields = llm_settings(llm_base_url) if llm_base_url else {}
    if image_api_url is not None:
        fields |= dashscope_settings(image_api_url)
    if openai_images_url is not None:
        fields |= openai_images_settings(openai_images_url)
    return fields


def settings_for(data_dir: Path, **fields: Any) -> Settings:
    """Settings for one test: its own data dir and its own task queues (so no other test's worker answers); app
    runs check their projects without npm unless a test asks (`app_toolchain_checks`)."""
    fields = {"app_toolchain_checks": "off"} | fields
    return Settings(data_dir=data_dir, task_queue_prefix=f"t{uuid.uuid4().hex[:8]}-", _env_file=None, **fields)


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
    image_api_url: str | None = None,
    openai_images_url: str | None = None,
) -> AsyncIterator[Harness]:
    """`llm_base_url`: configure the worker's LLM as an OpenAI-compatible server there (the loopback server);
    `image_api_url`: configure DashScope's image API there (its qwen-image models are then hosted);
    `openai_images_url`: OpenAI Images there, rendering the turns that name no model."""
    settings = settings_for(data_dir, **outside_services(llm_base_url, image_api_url, openai_images_url))
    blobs = blobs or LocalBlobStore(settings.blob_dir)
    llm_attempts: list[LlmAttempt] = []

    async def record_attempt(request: httpx.Request) -> None:
        info = activity.info()
        llm_attempts.append(LlmAttempt(info.activity_type, info.attempt, info.started_time))

    async with httpx.AsyncClient(event_hooks={"request": [record_attempt]}) as http:
        activities = build_activities(
            settings,
            http=http,
            blobs=blobs,
            renderer=image_provider,
            llm=build_llm_client(settings, http),
            style_store=rag_store or style_store,
        )
        harness = Harness(env=env, settings=settings, blobs=blobs, llm_attempts=llm_attempts)
        async with running_workers(env.client, settings, activities):
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
