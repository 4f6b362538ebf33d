"""The workflow test harness every family's builds on: settings on the test's own data dir and task queues, the
workers that serve them (`serving`, `running_family`), and `FamilyHarness`, which starts a workflow on the test's
own queue, waits for it, queries its state, streams its events and holds its transitions against the declared
graph (ARCHITECTURE rule 7), returning a `RunOutcome`.

Doubles are only ever passed for outside services (LLM, image APIs, vector store, object storage); every
workflow and activity under test is the real one. A family's harness (`tests/workflows/<family>/harness.py`)
subclasses `FamilyHarness` with its task queue, graph, state model and a `start` that builds its input.
"""

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import httpx
from pydantic import BaseModel
from temporalio.api.testservice.v1 import LockTimeSkippingRequest, UnlockTimeSkippingRequest
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Interceptor

from api.streaming import run_events
from models.events import RunEvent
from models.human_input import AwaitingInput
from models.runs import GraphPosition
from models.settings import Settings
from runtime.http_client import buffered_reads
from runtime.llm_client import build_llm_client
from stores.blob_backends import open_blob_store
from stores.blob_store import BlobStore
from tests.llm.answers import llm_settings
from tests.workflows.image.dashscope_double import dashscope_settings
from worker import Activities, build_activities, running_workers
from workflows.common.graph import Graph
from workflows.common.human_input import AWAITING_QUERY
from workflows.common.registration import Registry
from workflows.registry import REGISTRY

QUESTION_POLL_SECONDS = 0.02


def settings_for(data_dir: Path, **fields: Any) -> Settings:
    """Settings for one test: its own data dir and its own task queues (so no other test's worker answers); app
    runs check their projects without npm unless a test asks (`app_toolchain_checks`)."""
    fields = {"app_toolchain_checks": "off"} | fields
    return Settings(data_dir=data_dir, task_queue_prefix=f"t{uuid.uuid4().hex[:8]}-", _env_file=None, **fields)


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


async def terminate_running(client: Client, workflow_ids: set[str]) -> None:
    """The time-skipping server stops its clock while a workflow task waits for a worker: end leftovers."""
    for workflow_id in workflow_ids:
        handle = client.get_workflow_handle(workflow_id)
        if (await handle.describe()).status == WorkflowExecutionStatus.RUNNING:
            await handle.terminate("test finished")


@asynccontextmanager
async def time_skipping(client: Client) -> AsyncIterator[None]:
    """The time-skipping server skips time while the block runs, as it does while a test awaits `handle.result()`:
    whenever no activity or workflow task is in progress it jumps to the next timer, retry gap or deadline. For a
    test that follows a run through the gateway, which only queries and reads history, so that the run's retry gaps
    (5/10/20 s) do not pass in real time. Not for a run that waits on a person: its question's deadline would pass
    at once."""
    await client.test_service.unlock_time_skipping(UnlockTimeSkippingRequest())
    try:
        yield
    finally:
        await client.test_service.lock_time_skipping(LockTimeSkippingRequest())


async def question_of(handle: WorkflowHandle[Any, Any], *, patience_seconds: float = 10.0) -> AwaitingInput:
    """The question a run asks (`AWAITING_QUERY`), once it asks it within `patience_seconds` of wall time."""
    for _ in range(round(patience_seconds / QUESTION_POLL_SECONDS)):
        asked = await handle.query(AWAITING_QUERY)
        if asked:
            return AwaitingInput.model_validate(asked)
        await asyncio.sleep(QUESTION_POLL_SECONDS)
    raise AssertionError("the run never asked")


def assert_declared(graph: Graph, transitions: list[tuple[str, str]]) -> None:
    """ARCHITECTURE rule 7: every transition a run records is a declared edge of its graph."""
    undeclared = graph.undeclared(transitions)
    assert not undeclared, f"transitions not declared in the graph: {undeclared}"


class Positioned(Protocol):
    """A family's state as the harness reads it: its place in its graph."""

    @property
    def position(self) -> GraphPosition: ...


ResultT = TypeVar("ResultT")
StateT = TypeVar("StateT", bound=Positioned)


@dataclass
class RunOutcome(Generic[ResultT, StateT]):
    """A finished run: its result, its state (queried), its events (streamed) and its handle."""

    result: ResultT
    state: StateT
    events: list[RunEvent]
    handle: WorkflowHandle[Any, Any]

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.events]

    def of_type(self, type_: str) -> list[RunEvent]:
        return [event for event in self.events if event.type == type_]

    @property
    def path(self) -> list[str]:
        """Nodes visited, in order."""
        return [target for _, target in self.state.position.transitions]


OutcomeT = TypeVar("OutcomeT", bound=RunOutcome[Any, Any])


@dataclass
class FamilyHarness:
    """Starts one family's runs on the test's own task queue and reads what they did; `running_family` ends the
    runs it `started` that still run when the test is over."""

    env: WorkflowEnvironment
    settings: Settings
    started: set[str] = field(default_factory=set)

    family: ClassVar[str]
    """Whose task queue the runs go to."""
    graph: ClassVar[Graph | None] = None
    """The declared graph a finished run's transitions are held against."""
    state_model: ClassVar[type[BaseModel] | None] = None
    """What the workflow's `state` query returns."""

    async def start_run(self, workflow: Any, run_input: BaseModel, *, id_prefix: str) -> WorkflowHandle[Any, Any]:
        """Starts `workflow` (its run method or registered name) with a fresh id on this family's queue."""
        run_id = f"{id_prefix}-{uuid.uuid4().hex[:10]}"
        self.started.add(run_id)
        return await self.env.client.start_workflow(
            workflow, run_input, id=run_id, task_queue=self.settings.task_queue(self.family)
        )

    async def events(self, run_id: str, from_offset: int = 0) -> list[RunEvent]:
        """The run's events after `from_offset`, as the gateway streams them (until its last one)."""
        return [event async for event in run_events(self.env.client, run_id, from_offset)]

    async def outcome(self, handle: WorkflowHandle[Any, Any], kind: type[OutcomeT]) -> OutcomeT:
        """Waits for the run's result, then queries its state and streams its events; its transitions must be
        declared edges."""
        result = await handle.result()
        state = await handle.query("state", result_type=self.state_model)
        events = await self.events(handle.id)
        if self.graph is not None:
            assert_declared(self.graph, state.position.transitions)
        return kind(result=result, state=state, events=events, handle=handle)


HarnessT = TypeVar("HarnessT", bound=FamilyHarness)


@asynccontextmanager
async def serving(
    client: Client,
    settings: Settings,
    *,
    registry: Registry = REGISTRY,
    activities: Activities | None = None,
    interceptors: Sequence[Interceptor] = (),
    event_hooks: Mapping[str, list[Callable[..., Any]]] | None = None,
    **doubles: Any,
) -> AsyncIterator[None]:
    """Every registered family's worker on `settings`' task queues until the block ends: `activities`, or every
    family's real ones over one HTTP client (`event_hooks` watch its requests) with the LLM `settings` configure
    and `doubles` (blob store, image provider, style store, project index, embedder) for outside services."""
    async with httpx.AsyncClient(event_hooks=event_hooks) as http:
        buffered_reads(http)  # as the worker's own client reads (`runtime.http_client`)
        if activities is None:
            activities = build_activities(settings, http=http, llm=build_llm_client(settings, http), **doubles)
        async with running_workers(client, settings, activities, registry, interceptors=interceptors):
            yield


@asynccontextmanager
async def running_family(
    env: WorkflowEnvironment,
    data_dir: Path,
    harness: Callable[[Settings, BlobStore], HarnessT],
    *,
    settings: Settings | None = None,
    blobs: BlobStore | None = None,
    llm_base_url: str | None = None,
    image_api_url: str | None = None,
    openai_images_url: str | None = None,
    worker_client: Client | None = None,
    **serve: Any,
) -> AsyncIterator[HarnessT]:
    """A family's harness over workers for every family on fresh task queues (`serving`): `settings` (default:
    the test's own, with `outside_services` at the URLs given), one blob store shared by the harness and the
    activities; `worker_client` runs the workers on another connection (one with its own runtime's metrics)."""
    settings = settings or settings_for(data_dir, **outside_services(llm_base_url, image_api_url, openai_images_url))
    if blobs is None:
        blobs = await asyncio.to_thread(open_blob_store, settings)
    family = harness(settings, blobs)
    async with serving(worker_client or env.client, settings, blobs=blobs, **serve):
        try:
            yield family
        finally:
            await terminate_running(env.client, family.started)
