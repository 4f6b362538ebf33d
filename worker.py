"""Runs the worker: every family's workflows and activities, one Temporal worker per family's task queue.

`python worker.py` (or `make worker`) connects to Temporal at TEMPORAL_HOST:TEMPORAL_PORT and serves each
family's task queue (`TASK_QUEUE_PREFIX` + family) until SIGINT/SIGTERM, then shuts down gracefully.
"""

import asyncio
import logging
import os
import signal
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx
from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
from temporalio.client import Client
from temporalio.worker import Interceptor, UnsandboxedWorkflowRunner, Worker
from temporalio.worker._workflow_instance import _WorkflowLogicFlag

from activities.app_builder.analysis import AnalysisAgents
from activities.app_builder.execution import ExecutionAgents
from activities.app_builder.patches import PatchApplier
from activities.app_builder.planner import Planner as AppPlanner
from activities.app_builder.quality import QualityAgent
from activities.app_builder.task_loop import TaskLoop
from activities.common.blob_refs import MAX_IMAGE_BYTES, BlobResolver
from activities.common.image_fetch import GuardedImageFetcher
from activities.content.agents import ContentAgents
from activities.content.images import ImageAgent
from activities.content.research import ResearchAgent
from activities.content.supervisor import SupervisorAgent
from activities.image.critic import ImageCritic
from activities.image.executor import DirectImageExecutor, ImageExecutor
from activities.image.hosted import HostedImageNodes
from activities.image.image_provider import ImageProvider, LocalImageProvider
from activities.image.planner import Planner
from activities.image.providers.dashscope import DashScopeProvider
from activities.image.providers.openai_images import OpenAIImagesProvider
from activities.image.providers.tasks import HostedImageProvider, HostedProviders
from activities.image.rag import StyleRetriever
from activities.image.turns import TurnControl
from activities.image.validation import InputValidator
from activities.writing.agents import WritingAgents
from activities.writing.consistency_check import ConsistencyChecker
from activities.writing.preprocess import Preprocessor
from activities.writing.project_access import ProjectReader
from activities.writing.project_updates import ProjectUpdater
from activities.writing.router import Router
from llm import LLMClient
from llm.errors import ConfigurationError
from models.settings import Settings
from runtime.llm_client import build_llm_client
from runtime.telemetry import configure_tracing
from runtime.temporal_client import connect
from stores.blob_store import LocalBlobStore
from stores.embedder import HashingEmbedder
from stores.style_library import load_style_library, style_vocabulary
from stores.style_store import LanceStyleStore, StyleStore
from stores.writing_index import ProjectIndex, ProjectSearch
from stores.writing_projects import ProjectStore
from workflows.common.registration import Registry
from workflows.registry import REGISTRY

log = logging.getLogger("worker")

Activities = dict[str, list[Callable[..., Any]]]
"""Each family's activities, by family name."""

WORKFLOW_RUNNER = UnsandboxedWorkflowRunner()
"""Workflows run without the sandbox, which imports the workflow modules again for each workflow it starts or
replays and runs every payload conversion inside its proxies: measured by replaying an image run and its session,
it costs several times the unsandboxed time per workflow even with cached bytecode (figures: README, Performance).
The price: nothing stops workflow code from calling `datetime.now()` or doing I/O while it runs here, so
the tests replay recorded histories of every workflow under the default, strict sandbox
(`tests/workflows/image/test_replay.py`), and workflow modules keep no module-level state."""


def build_activities(
    settings: Settings,
    *,
    http: httpx.AsyncClient | None = None,
    blobs: LocalBlobStore | None = None,
    image_provider: ImageProvider | None = None,
    llm: LLMClient | None = None,
    style_store: StyleStore | None = None,
    project_index: ProjectSearch | None = None,
    embedder: HashingEmbedder | None = None,
) -> Activities:
    """Every activity, wired to its dependencies; tests swap in doubles for external services. `llm` is the
    agents' model (None: the offline rule-based fallbacks); `project_index` the writing family's search (None:
    embedded LanceDB under `DATA_DIR`) and `embedder` its ranking of style samples (None: the offline embedder)."""
    blobs = blobs or LocalBlobStore(settings.blob_dir)
    resolver = BlobResolver(blobs)
    fetcher = None
    if settings.allow_external_images:
        if http is None:
            raise ValueError("ALLOW_EXTERNAL_IMAGES needs the worker's HTTP client")
        timeout = settings.external_image_timeout_seconds
        fetcher = GuardedImageFetcher(http, max_bytes=MAX_IMAGE_BYTES, timeout_seconds=timeout)
    hosted_providers = HostedProviders(hosted_image_providers(settings, http))
    hosted = HostedImageNodes(hosted_providers, resolver)
    turns = TurnControl()
    direct = direct_image_provider(settings, http)
    library = load_style_library()
    store = style_store or LanceStyleStore.open(settings.lancedb_dir, library=library)
    provider = image_provider or LocalImageProvider()
    return {
        "image": [
            InputValidator(blobs, fetcher).validate_input,
            Planner(style_vocabulary(library), llm).plan,
            StyleRetriever(store).retrieve_styles,
            ImageExecutor(provider, resolver).execute,
            DirectImageExecutor(direct or provider, resolver).execute_direct,
            ImageCritic(resolver, llm).critique,
            hosted.submit,
            hosted.poll,
            hosted.fetch,
            hosted.cancel,
            turns.start_turn,
            turns.report_turn,
            turns.look_up_turn,
            turns.look_up_session,
        ],
        "writing": writing_activities(settings, llm, project_index, embedder),
        "content": content_activities(
            blobs, ImageAgent(provider, blobs, llm, direct=direct, hosted=hosted_providers), llm
        ),
        "app_builder": app_builder_activities(settings, blobs, llm),
    }


def app_builder_activities(
    settings: Settings, blobs: LocalBlobStore, llm: LLMClient | None
) -> list[Callable[..., Any]]:
    """The app run's agents, its merging and its quality checks (their npm work under `DATA_DIR/app_builder`)."""
    analysis = AnalysisAgents(llm)
    execution = ExecutionAgents(blobs)
    loop = TaskLoop(blobs, llm)
    quality = QualityAgent(blobs, settings.data_dir / "app_builder")
    return [
        analysis.product_manager,
        analysis.frontend_architect,
        analysis.ui_expert,
        analysis.ux_expert,
        AppPlanner(blobs, llm).planner,
        execution.scaffold_agent,
        execution.page_agent,
        execution.state_agent,
        execution.style_agent,
        execution.interaction_agent,
        execution.repair_agent,
        loop.task_turn,
        loop.task_tool,
        PatchApplier(blobs).apply_patches,
        quality.quality_checks,
        quality.toolchain_checks,
    ]


def hosted_image_providers(settings: Settings, http: httpx.AsyncClient | None) -> list[HostedImageProvider]:
    """The task-based image APIs this worker may call (`DASHSCOPE_API_KEY`): none, and every model renders
    locally, without a key."""
    if settings.dashscope_api_key is None:
        return []
    if http is None:
        raise ValueError("DASHSCOPE_API_KEY needs the worker's HTTP client")
    key = settings.dashscope_api_key.get_secret_value()
    return [DashScopeProvider(http, api_key=key, base_url=settings.dashscope_base_url)]


def direct_image_provider(settings: Settings, http: httpx.AsyncClient | None) -> ImageProvider | None:
    """OpenAI Images, when it renders the turns that name no model (`IMAGE_PROVIDER_DEFAULT=openai`)."""
    if not settings.direct_image_models or settings.openai_api_key is None:
        return None
    if http is None:
        raise ValueError("IMAGE_PROVIDER_DEFAULT=openai needs the worker's HTTP client")
    return OpenAIImagesProvider(
        http,
        api_key=settings.openai_api_key.get_secret_value(),
        base_url=settings.openai_image_base_url,
        model=settings.openai_image_model,
    )


def content_activities(blobs: LocalBlobStore, images: ImageAgent, llm: LLMClient | None) -> list[Callable[..., Any]]:
    """The content run's activities: the Supervisor, its agents and their tools."""
    agents = ContentAgents(blobs, llm)
    supervisor = SupervisorAgent(blobs, llm)
    research = ResearchAgent(blobs, llm)
    return [
        supervisor.supervisor_turn,
        supervisor.supervisor_tool,
        agents.brief_compiler,
        research.research_turn,
        research.research_tool,
        agents.reference_intelligence,
        agents.layout_planner,
        agents.image_planner,
        agents.writer,
        images.image_turn,
        images.image_tool,
        images.image_submit,
        images.image_poll,
        images.image_fetch,
        images.image_cancel,
        agents.review,
    ]


def writing_activities(
    settings: Settings, llm: LLMClient | None, project_index: ProjectSearch | None, embedder: HashingEmbedder | None
) -> list[Callable[..., Any]]:
    """The writing family's activities over the writers' projects under `DATA_DIR`."""
    index = project_index or ProjectIndex.open(settings.lancedb_dir / "writing")
    reader = ProjectReader(ProjectStore.under(settings.data_dir), index)
    preprocessor = Preprocessor(reader, embedder)
    agents = WritingAgents(reader, llm)
    updater = ProjectUpdater(reader)
    return [
        Router(llm).route,
        preprocessor.rag,
        preprocessor.character_states,
        preprocessor.style_samples,
        preprocessor.archetypes,
        preprocessor.plot_loops,
        preprocessor.preflight,
        agents.writer,
        agents.character,
        agents.world_builder,
        agents.planner,
        agents.consistency,
        agents.brainstorm,
        agents.simple,
        ConsistencyChecker(reader, llm).check,
        updater.update_relationships,
        updater.update_knowledge,
    ]


SINGLE_BATCH = _WorkflowLogicFlag.PROCESS_WORKFLOW_ACTIVATION_JOBS_AS_SINGLE_BATCH
"""The SDK's opt-in activation order (to become its default; set through its private setter, as its own tests
do): every job of an activation is applied before any workflow task runs, so a handler that first yields sees
the results that came in the same workflow task. Without it, a worker that replays a session from history could
run a message's handler before the previous turn's result and decide differently than the history recorded (a
nondeterminism error: `tests/workflows/image/test_session.py`). Recorded in each history, so older histories
replay in the old order."""


def build_workers(
    client: Client,
    settings: Settings,
    activities: Activities,
    registry: Registry = REGISTRY,
    *,
    interceptors: Sequence[Interceptor] = (),
) -> list[Worker]:
    """One worker per family: its task queue, its workflows and its activities (and `interceptors`, which tests
    use to watch activities run)."""
    workers = []
    for family in sorted(set(registry.families()) | set(activities)):
        workflows = [entry.workflow for entry in registry.of_family(family)]
        family_worker = Worker(
            client,
            task_queue=settings.task_queue(family),
            workflows=workflows,
            activities=activities.get(family, []),
            workflow_runner=WORKFLOW_RUNNER,
            max_concurrent_activities=settings.worker_max_concurrent_activities,
            max_concurrent_local_activities=settings.worker_max_concurrent_activities,
            max_concurrent_workflow_tasks=settings.worker_max_concurrent_workflow_tasks,
            max_cached_workflows=settings.worker_max_cached_workflows,
            interceptors=interceptors,
        )
        if workflows:
            family_worker._set_default_workflow_logic_flag(SINGLE_BATCH, enabled=True)
        workers.append(family_worker)
    return workers


@asynccontextmanager
async def running_workers(
    client: Client,
    settings: Settings,
    activities: Activities,
    registry: Registry = REGISTRY,
    *,
    interceptors: Sequence[Interceptor] = (),
) -> AsyncIterator[list[Worker]]:
    """Run every family's worker until the block ends, then shut them all down."""
    built = build_workers(client, settings, activities, registry, interceptors=interceptors)
    async with AsyncExitStack() as stack:
        workers = [await stack.enter_async_context(w) for w in built]
        yield workers


def blocking_work_threads(settings: Settings) -> ThreadPoolExecutor:
    """The event loop's default executor, which `asyncio.to_thread` hands the activities' blocking work to: one
    thread per core unless `WORKER_THREADS` says otherwise. Python's default (cores + 4: six here) ran six renders
    at once on two cores, fighting over the GIL and the caches: at 50 concurrent sessions it gave fewer turns a
    second and more worker CPU per turn than two threads (measured: README, Performance)."""
    return ThreadPoolExecutor(max_workers=settings.worker_threads or os.cpu_count() or 1, thread_name_prefix="work")


async def run(settings: Settings) -> None:
    configure_tracing(settings, "worker")
    asyncio.get_running_loop().set_default_executor(blocking_work_threads(settings))
    HTTPXClientInstrumentor().instrument()
    async with httpx.AsyncClient(timeout=httpx.Timeout(4.0)) as http:
        llm = build_llm_client(settings, http)  # a configuration error stops the worker before it connects
        log.info("LLM: %s", llm.name if llm else "none configured, offline keyword rules")
        client = await connect(settings)
        activities = build_activities(settings, http=http, llm=llm)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with running_workers(client, settings, activities) as workers:
            queues = ", ".join(repr(w.task_queue) for w in workers)
            log.info("worker serving task queues %s on %s", queues, settings.temporal_address)
            await stop.wait()
            log.info("worker shutting down")


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(run(Settings()))
    except ConfigurationError as err:
        log.error("cannot start: %s", err.message)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
