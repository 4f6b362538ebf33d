"""The content family's workflow test harness: `ContentSupervisorWorkflow` runs on the test's own task queue (over
`tests.workflows.harness`), with evidence notes and rendered reference images in the test's own blob store.

Doubles stand in only for outside services (the LLM, through the loopback server); the images are rendered by
the local renderer.
"""

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from imaging.rendering import encode_png, render_text_to_image
from models.blobs import blob_ref
from models.content.artifacts import LayoutPreference, Platform
from models.content.options import Length
from models.content.runs import ContentResult, ContentRunInput
from models.content.state import ContentState, RouteRecord
from models.settings import Settings
from stores.blob_store import BlobStore
from stores.evidence import store_notes
from tests.workflows.harness import FamilyHarness, RunOutcome, running_family
from workflows.content.graph import GRAPH
from workflows.content.workflow import ContentSupervisorWorkflow

NOTES = [
    "2025 年职场调查：67% 的上班族每天喝至少一杯咖啡，其中 42% 在上午十点前喝第一杯。",
    "营养师建议：每天咖啡因摄入不超过 400 毫克，约等于 4 杯美式。",
    "“下午三点的咖啡最提神”，一位咖啡师在采访中说。",
    "手冲咖啡的水温建议在 90 到 96 摄氏度之间，研磨度接近砂糖。",
]


@dataclass
class ContentOutcome(RunOutcome[ContentResult, ContentState]):
    """A finished run: its result, its state (queried) and its events (streamed)."""

    @property
    def decisions(self) -> list[RouteRecord]:
        """The passes through `routeFromSupervisor()` (not the end at `maxIterations`)."""
        return [route for route in self.state.metadata.routes if route.rule != "max_iterations"]


@dataclass
class ContentHarness(FamilyHarness):
    """Starts content runs on the test's own task queue."""

    blobs: BlobStore = field(kw_only=True)

    family = "content"
    graph = GRAPH
    state_model = ContentState

    def reference(self, prompt: str, seed: int = 7) -> str:
        """A reference image in the blob store (rendered), as the run carries it."""
        png = encode_png(render_text_to_image(prompt, seed=seed, width=320, height=240, style_strength=0.9))
        return blob_ref(self.blobs.put(png, kind="uploads", ext="png"))

    async def start(
        self,
        topic: str,
        *,
        platform: Platform | None = "xiaohongshu",
        notes: Sequence[str] = NOTES,
        references: Sequence[str] = (),
        layout: LayoutPreference | None = None,
        tone: str | None = None,
        length: Length | None = None,
        max_iterations: int = 20,
        max_clarifications: int = 2,
        input_timeout_seconds: float = 24 * 3600,
        image_gen_provider: str = "local",
        allow_fallback: bool = True,
        deadline_seconds: float = 900.0,
    ) -> WorkflowHandle[ContentSupervisorWorkflow, ContentResult]:
        run_input = ContentRunInput(
            owner="tester",
            topic=topic,
            platform=platform,
            reference_images=list(references),
            evidence_notes_ref=store_notes(self.blobs, list(notes)) if notes else None,
            evidence_notes=len(notes),
            layout_preference=layout,
            tone=tone,
            length=length,
            max_iterations=max_iterations,
            max_clarification_rounds=max_clarifications,
            llm_configured=self.settings.llm_provider is not None,
            input_timeout_seconds=input_timeout_seconds,
            image_gen_provider=image_gen_provider,
            hosted_models=self.settings.hosted_image_models,
            direct_models=self.settings.direct_image_models,
            allow_fallback=allow_fallback,
            deadline_seconds=deadline_seconds,
        )
        return await self.start_run(ContentSupervisorWorkflow.run, run_input, id_prefix="content-test")

    async def run(self, topic: str, **options: Any) -> ContentOutcome:
        return await self.finish(await self.start(topic, **options))

    async def finish(self, handle: WorkflowHandle[Any, Any]) -> ContentOutcome:
        return await self.outcome(handle, ContentOutcome)


@asynccontextmanager
async def content_harness(
    env: WorkflowEnvironment,
    data_dir: Path,
    *,
    llm_base_url: str | None = None,
    image_api_url: str | None = None,
    openai_images_url: str | None = None,
    worker_client: Client | None = None,
) -> AsyncIterator[ContentHarness]:
    """A worker for every family on fresh task queues; `llm_base_url` makes the loopback server the LLM;
    `image_api_url` puts DashScope's image API there, `openai_images_url` OpenAI Images (the default model);
    `worker_client` runs the workers on another connection (one with its own runtime's metrics)."""

    def harness(settings: Settings, blobs: BlobStore) -> ContentHarness:
        return ContentHarness(env, settings, blobs=blobs)

    async with running_family(
        env,
        data_dir,
        harness,
        llm_base_url=llm_base_url,
        image_api_url=image_api_url,
        openai_images_url=openai_images_url,
        worker_client=worker_client,
    ) as running:
        yield running
