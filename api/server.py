"""The gateway application: `create_app()` for tests and `main()` (`python -m api.server`) for uvicorn."""

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from fastapi import FastAPI
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from temporalio.client import Client

from api.errors import install_error_handlers
from api.launch import Launchers
from api.routes import blobs, image, runs, workflows
from models.settings import Settings
from runtime.telemetry import configure_tracing
from runtime.temporal_client import connect
from stores.blob_store import LocalBlobStore
from workflows.registry import IMAGE_AGENT, REGISTRY, Registry

LAUNCHERS: Launchers = {IMAGE_AGENT.name: image.launch_turn}
"""Workflows whose runs start their own way; every other startable workflow is started directly."""


def create_app(
    settings: Settings | None = None,
    client: Client | None = None,
    registry: Registry = REGISTRY,
    launchers: Launchers = LAUNCHERS,
) -> FastAPI:
    """The gateway; pass `client` to reuse a connection (tests), else it connects in the lifespan."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.blobs = LocalBlobStore(settings.blob_dir)
        app.state.registry = registry
        app.state.launchers = launchers
        app.state.temporal = client or await connect(settings)
        yield

    app = FastAPI(
        title="Durable agents gateway",
        version="0.1.0",
        description="Starts agent workflows on Temporal, streams their events (SSE), serves runs, graphs and blobs.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.include_router(runs.build_router(registry))
    app.include_router(workflows.router)
    app.include_router(image.router)
    app.include_router(blobs.router)

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    FastAPIInstrumentor.instrument_app(app, excluded_urls="healthz")
    return app


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings()
    configure_tracing(settings, "gateway")
    uvicorn.run(create_app(settings), host=settings.api_host, port=settings.api_port, log_level="info")


if __name__ == "__main__":
    main()
