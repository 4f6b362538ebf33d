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
from typing import Any, Unpack

from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
from temporalio.client import Client
from temporalio.worker import Interceptor, UnsandboxedWorkflowRunner, Worker
from temporalio.worker._workflow_instance import _WorkflowLogicFlag

from activities.common.dependencies import Overrides, WorkerDependencies
from activities.common.live_text import LiveTextConfigError, LiveTextInterceptor, live_poster
from llm.errors import ConfigurationError
from models.settings import Settings
from runtime.http_client import shared_http_client
from runtime.llm_client import build_llm_client
from runtime.telemetry import configure_tracing
from runtime.temporal_client import connect
from stores.blob_backends import BlobStoreConfigError, open_blob_store
from stores.vector_errors import VectorStoreConfigError
from stores.vector_stores import SharedVectorStores, open_worker_vector_stores
from workflows.common.family import Family
from workflows.common.registration import Registry
from workflows.policies import cpu_task_queue
from workflows.registry import FAMILIES, REGISTRY

log = logging.getLogger("worker")

Activities = dict[str, list[Callable[..., Any]]]
"""Each family's activities, by family name."""

WORKFLOW_RUNNER = UnsandboxedWorkflowRunner()
"""Workflows run without the sandbox, which imports the workflow modules again for each workflow it starts or
replays and runs every payload conversion inside its proxies: measured by replaying a run and its session,
it costs several times the unsandboxed time per workflow even with cached bytecode (figures: README, Performance).
The price: nothing stops workflow code from calling `datetime.now()` or doing I/O while it runs here, so CI
replays the committed history of every workflow type under the default, strict sandbox
(`tests/workflows/test_committed_histories.py`, `docs/durable-changes.md`), and workflow modules keep no
module-level state."""


def build_activities(
    settings: Settings, *, families: tuple[Family, ...] = FAMILIES, **given: Unpack[Overrides]
) -> Activities:
    """Every family's activities, each family's from its own factory over the shared dependencies; tests give
    doubles for the outside services (`Overrides`)."""
    dependencies = WorkerDependencies(settings, given)
    return {family.name: family.activity_factory()(dependencies) for family in families}


SINGLE_BATCH = _WorkflowLogicFlag.PROCESS_WORKFLOW_ACTIVATION_JOBS_AS_SINGLE_BATCH
"""The SDK's opt-in activation order (to become its default; set through its private setter, as its own tests
do): every job of an activation is applied before any workflow task runs, so a handler that first yields sees
the results that came in the same workflow task. Without it, a worker that replays a session from history could
run a message's handler before the previous turn's result and decide differently than the history recorded (a
nondeterminism error, which the session tests guard against). Recorded in each history, so older histories
replay in the old order. temporalio 1.35 has no public option for it (`_DEFAULT_ENABLED_WORKFLOW_LOGIC_FLAGS` is
empty, to be filled "after two published SDK releases have recognized flag 2"): drop this setter once the SDK
enables the flag by default."""


EAGER_ACTIVITIES_PER_WORKFLOW_TASK = 10
"""How many of the activities one workflow task schedules on its own queue start in that task's completion
(eager execution), where the SDK's default is 3: a node that fans out (tasks side by side, a turn's tool calls)
gets all of them back at once instead of sending the rest through the task queue. With the default, 50 runs at
once of a family whose node starts four tasks lost the fourth in 24 runs (a 20 ms read recorded as started that
did not finish inside its 5 s, while the three eager tasks beside it did); with ten, 0, 1 and 12 runs lost tasks
in three bursts (README, Performance, "Every activity of a fan-out starts eagerly"). A reservation takes a free
activity slot only, so a busy worker still sends the activity through the queue."""


def build_workers(
    client: Client,
    settings: Settings,
    activities: Activities,
    registry: Registry = REGISTRY,
    *,
    interceptors: Sequence[Interceptor] = (),
) -> list[Worker]:
    """One worker per family: its task queue, its workflows and its activities (and `interceptors`, which tests
    use to watch activities run); and for each family with activities, a worker on its CPU queue
    (`NodeOptions.cpu_bound`) that runs as many of them at once as there are threads for blocking work
    (`work_threads`), so a CPU-bound attempt waits on the server's queue rather than inside its timeout."""
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
            max_eager_activity_reservations_per_workflow_task=EAGER_ACTIVITIES_PER_WORKFLOW_TASK,
            interceptors=interceptors,
        )
        if workflows:
            family_worker._set_default_workflow_logic_flag(SINGLE_BATCH, enabled=True)
        workers.append(family_worker)
        if activities.get(family):
            cpu_worker = Worker(
                client,
                task_queue=cpu_task_queue(settings.task_queue(family)),
                activities=activities[family],
                max_concurrent_activities=work_threads(settings),
                interceptors=interceptors,
            )
            workers.append(cpu_worker)
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
    """Run every family's worker until the block ends, then shut them all down; with `LIVE_TEXT_URLS`, their
    activities post their agents' text to those gateways as it is written (`activities.common.live_text`)."""
    poster = live_poster(settings)
    log.info("live text: %s", f"posted to {', '.join(poster.urls)}" if poster else "off (LIVE_TEXT_URLS unset)")
    if poster is not None:
        interceptors = [*interceptors, LiveTextInterceptor(poster)]
    built = build_workers(client, settings, activities, registry, interceptors=interceptors)
    async with AsyncExitStack() as stack:
        if poster is not None:
            stack.push_async_callback(poster.aclose)
        workers = [await stack.enter_async_context(w) for w in built]
        yield workers


def work_threads(settings: Settings) -> int:
    """Threads for the activities' blocking work: one per core unless `WORKER_THREADS` says otherwise."""
    return settings.worker_threads or os.cpu_count() or 1


def blocking_work_threads(settings: Settings) -> ThreadPoolExecutor:
    """The event loop's default executor, which `asyncio.to_thread` hands the activities' blocking work to
    (`work_threads`). Python's default (cores + 4: six here) ran six renders at once on two cores, fighting over
    the GIL and the caches: at 50 concurrent sessions it gave fewer turns a second and more worker CPU per turn than
    two threads (measured: README, Performance)."""
    return ThreadPoolExecutor(max_workers=work_threads(settings), thread_name_prefix="work")


async def run(settings: Settings) -> None:
    configure_tracing(settings, "worker")
    asyncio.get_running_loop().set_default_executor(blocking_work_threads(settings))
    HTTPXClientInstrumentor().instrument()
    async with shared_http_client(4.0) as http:
        llm = build_llm_client(settings, http)  # a configuration error stops the worker before it connects
        log.info("LLM: %s", llm.name if llm else "none configured, offline keyword rules")
        live_poster(settings)  # checked before connecting: a live text without its secret stops the worker here
        blobs = await asyncio.to_thread(open_blob_store, settings)  # a bad blob store stops it here too
        client = await connect(settings)
        # VECTOR_STORE=weaviate: the collections are created now, and a bad server stops the worker here too
        vectors = await asyncio.to_thread(open_worker_vector_stores, settings)
        given = Overrides(http=http, llm=llm, blobs=blobs) | vector_overrides(vectors)
        # The stores open here (a PostgreSQL pool): blocking, so in a thread.
        activities = await asyncio.to_thread(build_activities, settings, **given)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with running_workers(client, settings, activities) as workers:
            queues = ", ".join(repr(w.task_queue) for w in workers)
            log.info("worker serving task queues %s on %s", queues, settings.temporal_address)
            await stop.wait()
            log.info("worker shutting down")
        if vectors is not None:
            await asyncio.to_thread(vectors.close)


def vector_overrides(vectors: SharedVectorStores | None) -> Overrides:
    """The activities' style store and project index when the worker opened them at start (Weaviate); none on
    LanceDB, whose stores open at first use."""
    return {} if vectors is None else {"style_store": vectors.style_store, "project_index": vectors.project_index}


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(run(Settings()))
    except ConfigurationError as err:
        log.error("cannot start: %s", err.message)
        raise SystemExit(2) from None
    except (BlobStoreConfigError, VectorStoreConfigError, LiveTextConfigError) as err:
        log.error("cannot start: %s", err)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
