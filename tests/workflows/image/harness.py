"""The image agent's workflow test harness: `ImageAgentWorkflow` turns on the test's own task queue (over
`tests.workflows.harness`), with every LLM request the worker's activities sent recorded."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from temporalio import activity
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from imaging.image_provider import ImageProvider
from models.image.runs import ImageAgentInput, ImageTurnResult, TurnContext
from models.image.state import ImageAgentState, MaskRef, PreferredModel, PreviousResult, UserInput
from models.settings import Settings
from stores.blob_store import BlobStore
from stores.style_store import StyleStore
from tests.workflows.harness import FamilyHarness, RunOutcome, running_family
from workflows.image.graph import GRAPH
from workflows.image.workflow import ImageAgentWorkflow


@dataclass
class Outcome(RunOutcome[ImageTurnResult, ImageAgentState]):
    """A finished turn: its result, its state (queried), its events (streamed) and its handle."""

    @property
    def error_code(self) -> str | None:
        errors = self.of_type("error")
        return errors[-1].data["code"] if errors else None


@dataclass(frozen=True)
class LlmAttempt:
    """One LLM request an activity sent: which activity, which attempt, when it started on the workflow clock."""

    activity: str
    attempt: int
    started: datetime


@dataclass
class Harness(FamilyHarness):
    """Starts image-agent turns (numbered from 1) on the test's own task queue and collects what they did."""

    blobs: BlobStore = field(kw_only=True)
    runs: int = 0
    llm_attempts: list[LlmAttempt] = field(default_factory=list)

    family = "image"
    graph = GRAPH
    state_model = ImageAgentState

    async def run(self, text: str, **options: Any) -> Outcome:
        return await self.outcome(await self.start(text, **options), Outcome)

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
        user_input = UserInput(
            text=text, mask_data=mask, preferred_model=preferred_model, allow_fallback=allow_fallback
        )
        run_input = ImageAgentInput(
            session_id="test",
            turn=self.runs,
            user_input=user_input,
            context=TurnContext(previous=previous),
            deadline_seconds=deadline_seconds,
            llm_configured=self.settings.llm_provider is not None,
            hosted_models=self.settings.hosted_image_models,
            direct_models=self.settings.direct_image_models,
            default_model=self.settings.default_image_model,
        )
        return await self.start_run(ImageAgentWorkflow.run, run_input, id_prefix="image-test")


@asynccontextmanager
async def agent_harness(
    env: WorkflowEnvironment,
    data_dir: Path,
    style_store: StyleStore,
    *,
    image_provider: ImageProvider | None = None,
    llm_base_url: str | None = None,
    blobs: BlobStore | None = None,
    rag_store: StyleStore | None = None,
    image_api_url: str | None = None,
    openai_images_url: str | None = None,
) -> AsyncIterator[Harness]:
    """`llm_base_url`: configure the worker's LLM as an OpenAI-compatible server there (the loopback server);
    `image_api_url`: configure DashScope's image API there (its qwen-image models are then hosted);
    `openai_images_url`: OpenAI Images there, rendering the turns that name no model."""
    llm_attempts: list[LlmAttempt] = []

    async def record_attempt(request: httpx.Request) -> None:
        info = activity.info()
        llm_attempts.append(LlmAttempt(info.activity_type, info.attempt, info.started_time))

    def harness(settings: Settings, blobs: BlobStore) -> Harness:
        return Harness(env, settings, blobs=blobs, llm_attempts=llm_attempts)

    async with running_family(
        env,
        data_dir,
        harness,
        blobs=blobs,
        llm_base_url=llm_base_url,
        image_api_url=image_api_url,
        openai_images_url=openai_images_url,
        renderer=image_provider,
        style_store=rag_store or style_store,
        event_hooks={"request": [record_attempt]},
    ) as running:
        yield running
