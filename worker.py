"""Runs the worker: registers every workflow and activity with their dependencies, tracing and data converter.

`python worker.py` (or `make worker`) connects to Temporal at TEMPORAL_HOST:TEMPORAL_PORT and serves the
task queue until SIGINT/SIGTERM, then shuts down gracefully.
"""

import asyncio
import logging
import signal
from collections.abc import Callable
from typing import Any

import httpx
from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
from temporalio.client import Client
from temporalio.worker import Worker

from activities.blob_refs import BlobResolver
from activities.critic import ImageCritic
from activities.executor import ImageExecutor
from activities.image_provider import ImageProvider, LocalImageProvider
from activities.planner import Planner
from activities.rag import StyleRetriever
from activities.validation import InputValidator
from llm import LLMClient
from llm.errors import ConfigurationError
from models.settings import Settings
from runtime.llm_client import build_llm_client
from runtime.telemetry import configure_tracing
from runtime.temporal_client import connect
from stores.blob_store import LocalBlobStore
from stores.style_library import load_style_library, style_vocabulary
from stores.style_store import LanceStyleStore, StyleStore
from workflows.registry import WORKFLOWS

log = logging.getLogger("worker")


def build_activities(
    settings: Settings,
    *,
    http: httpx.AsyncClient | None = None,
    blobs: LocalBlobStore | None = None,
    image_provider: ImageProvider | None = None,
    llm: LLMClient | None = None,
    style_store: StyleStore | None = None,
) -> list[Callable[..., Any]]:
    """Every activity, wired to its dependencies; tests swap in doubles for external services. `llm` is the
    Planner's and Critic's model (None: the offline rule-based fallbacks)."""
    blobs = blobs or LocalBlobStore(settings.blob_dir)
    resolver = BlobResolver(blobs, settings.base_url, http)
    library = load_style_library()
    store = style_store or LanceStyleStore.open(settings.lancedb_dir, library=library)
    return [
        InputValidator(blobs).validate_input,
        Planner(style_vocabulary(library), llm).plan,
        StyleRetriever(store).retrieve_styles,
        ImageExecutor(image_provider or LocalImageProvider(), resolver).execute,
        ImageCritic(resolver, llm).critique,
    ]


def build_worker(client: Client, settings: Settings, activities: list[Callable[..., Any]]) -> Worker:
    return Worker(client, task_queue=settings.task_queue, workflows=list(WORKFLOWS), activities=activities)


async def run(settings: Settings) -> None:
    configure_tracing(settings, "worker")
    HTTPXClientInstrumentor().instrument()
    async with httpx.AsyncClient(timeout=httpx.Timeout(4.0)) as http:
        llm = build_llm_client(settings, http)  # a configuration error stops the worker before it connects
        log.info("LLM: %s", llm.name if llm else "none configured, offline keyword rules")
        client = await connect(settings)
        worker = build_worker(client, settings, build_activities(settings, http=http, llm=llm))
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with worker:
            log.info("worker serving task queue %r on %s", settings.task_queue, settings.temporal_address)
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
