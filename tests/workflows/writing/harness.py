"""Runs `WritingWorkflow` on a Temporal test server with a fresh task queue and worker per test, over a writer's
project stored in the test's own data dir.

Doubles stand in only for outside services (the LLM, through the loopback server; the search index, which is
Weaviate at scale); every workflow and activity under test is the real one.
"""

import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from api.streaming import run_events
from models.events import RunEvent
from models.settings import Settings
from models.writing.agents import ChainContext
from models.writing.projects import ChapterIn, CharacterIn, PlotLoopIn, ProjectIn, StyleSampleIn
from models.writing.runs import WritingResult, WritingRunInput, WritingState
from runtime.llm_client import build_llm_client
from stores.embedder import HashingEmbedder
from stores.writing_index import ProjectSearch
from stores.writing_projects import ProjectStore
from tests.workflows.image.harness import outside_services, settings_for, terminate_running
from tests.workflows.outcomes import StreamedEvents
from worker import build_activities, running_workers
from workflows.writing.graph import GRAPH
from workflows.writing.workflow import WritingWorkflow

OWNER = "writer"


@dataclass
class WritingOutcome(StreamedEvents):
    """A finished run: its result, its state (queried) and its events (streamed)."""

    result: WritingResult
    state: WritingState
    events: list[RunEvent]
    handle: WorkflowHandle[Any, Any]

    def one(self, type_: str) -> dict[str, Any]:
        found = self.of_type(type_)
        assert len(found) == 1, f"expected one {type_} event, got {len(found)}: {self.types}"
        return found[0].data

    @property
    def content(self) -> str:
        """The text the `content` events carried, from the last restart on."""
        text = ""
        for event in self.of_type("content"):
            text = event.data["text"] if event.data.get("restart") else text + event.data["text"]
        return text

    @property
    def path(self) -> list[str]:
        return [target for _, target in self.state.metadata.transitions]


@dataclass
class WritingHarness:
    """Starts writing runs on the test's own task queue and seeds the projects they work on."""

    env: WorkflowEnvironment
    settings: Settings
    projects: ProjectStore
    started: set[str] = field(default_factory=set)

    def project(
        self,
        name: str = "长夜",
        *,
        chapters: Sequence[tuple[str, str]] = (),
        characters: Sequence[tuple[str, str]] = (),
        plot_loops: Sequence[str] = (),
        style_samples: Sequence[str] = (),
        owner: str = OWNER,
    ) -> str:
        project_id = self.projects.create_project(owner, ProjectIn(name=name, genre="悬疑")).project_id
        for title, content in chapters:
            self.projects.add_chapter(owner, project_id, ChapterIn(title=title, content=content))
        for character, description in characters:
            self.projects.add_character(owner, project_id, CharacterIn(name=character, description=description))
        for loop in plot_loops:
            self.projects.add_plot_loop(owner, project_id, PlotLoopIn(title=loop, description=f"{loop}的伏笔"))
        for number, sample in enumerate(style_samples, start=1):
            self.projects.add_style_sample(owner, project_id, StyleSampleIn(title=f"样本{number}", text=sample))
        return project_id

    async def start(
        self,
        project_id: str,
        text: str,
        *,
        chain_context: ChainContext | None = None,
        input_timeout_seconds: float = 24 * 3600,
        owner: str = OWNER,
    ) -> WorkflowHandle[WritingWorkflow, WritingResult]:
        run_id = f"writing-test-{uuid.uuid4().hex[:10]}"
        self.started.add(run_id)
        return await self.env.client.start_workflow(
            WritingWorkflow.run,
            WritingRunInput(
                owner=owner,
                project_id=project_id,
                text=text,
                chain_context=chain_context,
                llm_configured=self.settings.llm_provider is not None,
                deadline_seconds=self.settings.writing_run_deadline_seconds,
                input_timeout_seconds=input_timeout_seconds,
            ),
            id=run_id,
            task_queue=self.settings.task_queue("writing"),
        )

    async def run(self, project_id: str, text: str, **options: Any) -> WritingOutcome:
        return await self.finish(await self.start(project_id, text, **options))

    async def finish(self, handle: WorkflowHandle[Any, Any]) -> WritingOutcome:
        result = await handle.result()
        state = await handle.query(WritingWorkflow.state)
        events = [event async for event in run_events(self.env.client, handle.id)]
        undeclared = GRAPH.undeclared(state.metadata.transitions)
        assert not undeclared, f"transitions not declared in the graph: {undeclared}"
        return WritingOutcome(result=result, state=state, events=events, handle=handle)

    async def events(self, run_id: str) -> list[RunEvent]:
        return [event async for event in run_events(self.env.client, run_id)]


@asynccontextmanager
async def writing_harness(
    env: WorkflowEnvironment,
    data_dir: Path,
    *,
    llm_base_url: str | None = None,
    project_index: ProjectSearch | None = None,
    embedder: HashingEmbedder | None = None,
    settings: Settings | None = None,
) -> AsyncIterator[WritingHarness]:
    """A worker for every family on fresh task queues; `llm_base_url` makes the loopback server the LLM."""
    settings = settings or settings_for(data_dir, **outside_services(llm_base_url))
    async with httpx.AsyncClient() as http:
        activities = build_activities(
            settings, llm=build_llm_client(settings, http), project_index=project_index, embedder=embedder
        )
        harness = WritingHarness(env=env, settings=settings, projects=ProjectStore.under(settings.data_dir))
        async with running_workers(env.client, settings, activities):
            try:
                yield harness
            finally:
                await terminate_running(env.client, harness.started)
