"""The writing family's workflow test harness: `WritingWorkflow` runs on the test's own task queue (over
`tests.workflows.harness`), on a writer's project stored in the test's own data dir.

Doubles stand in only for outside services (the LLM, through the loopback server; the search index, which is
Weaviate at scale).
"""

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from models.settings import Settings
from models.writing.agents import ChainContext
from models.writing.projects import ChapterIn, CharacterIn, PlotLoopIn, ProjectIn, StyleSampleIn
from models.writing.runs import WritingResult, WritingRunInput, WritingState
from stores.blob_store import BlobStore
from stores.embedder import HashingEmbedder
from stores.writing_passages import ProjectSearch
from stores.writing_projects import ProjectStore
from stores.writing_stores import open_project_store
from tests.workflows.harness import FamilyHarness, RunOutcome, running_family
from workflows.common.registration import Registry
from workflows.registry import REGISTRY
from workflows.writing.graph import GRAPH
from workflows.writing.workflow import WritingWorkflow

OWNER = "writer"


@dataclass
class WritingOutcome(RunOutcome[WritingResult, WritingState]):
    """A finished run: its result, its state (queried) and its events (streamed)."""

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


@dataclass
class WritingHarness(FamilyHarness):
    """Starts writing runs on the test's own task queue and seeds the projects they work on."""

    projects: ProjectStore = field(kw_only=True)

    family = "writing"
    graph = GRAPH
    state_model = WritingState

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
        session_id: str | None = None,
    ) -> WorkflowHandle[WritingWorkflow, WritingResult]:
        run_input = WritingRunInput(
            owner=owner,
            project_id=project_id,
            text=text,
            session_id=session_id,
            chain_context=chain_context,
            llm_configured=self.settings.llm_provider is not None,
            deadline_seconds=self.settings.writing_run_deadline_seconds,
            input_timeout_seconds=input_timeout_seconds,
        )
        return await self.start_run(WritingWorkflow.run, run_input, id_prefix="writing-test")

    async def run(self, project_id: str, text: str, **options: Any) -> WritingOutcome:
        return await self.finish(await self.start(project_id, text, **options))

    async def finish(self, handle: WorkflowHandle[Any, Any]) -> WritingOutcome:
        return await self.outcome(handle, WritingOutcome)


@asynccontextmanager
async def writing_harness(
    env: WorkflowEnvironment,
    data_dir: Path,
    *,
    llm_base_url: str | None = None,
    project_index: ProjectSearch | None = None,
    embedder: HashingEmbedder | None = None,
    settings: Settings | None = None,
    registry: Registry = REGISTRY,
) -> AsyncIterator[WritingHarness]:
    """A worker for every family on fresh task queues (the workflows of `registry`); `llm_base_url` makes the
    loopback server the LLM."""

    def harness(settings: Settings, blobs: BlobStore) -> WritingHarness:
        return WritingHarness(env, settings, projects=open_project_store(settings))

    async with running_family(
        env,
        data_dir,
        harness,
        settings=settings,
        llm_base_url=llm_base_url,
        project_index=project_index,
        embedder=embedder,
        registry=registry,
    ) as running:
        yield running
