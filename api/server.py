"""The gateway application: `create_app()` for tests and `main()` (`python -m api.server`) for uvicorn."""

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import uvicorn
from fastapi import Depends, FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.trace import TracerProvider
from temporalio.api.workflowservice.v1 import GetSystemInfoRequest
from temporalio.client import Client
from temporalio.service import RPCError

from api import live_text
from api.admission import Admission, RateLimiter, principal_share
from api.blob_urls import signing_secret
from api.bodies import add_documented_schemas
from api.body_limits import BodyLimitMiddleware, RouteLimits
from api.deps import Blobs, TemporalClient, rate_limited
from api.errors import RETRY_TEMPORAL_SECONDS, ApiError, install_error_handlers, temporal_unavailable
from api.families import all_launchers, close_services, family_gateways
from api.intake import Intake
from api.key_throttle import FailedKeyThrottle
from api.launch import Launchers
from api.principals import LOCAL_PRINCIPAL, KeyConfigError, KeyRing, is_loopback
from api.routes import blobs, console, run_socket, runs, workflows
from api.slow_clients import HeaderDeadlineProtocol
from models.errors import ErrorCode
from models.settings import Settings
from runtime.quiet_logs import quiet_live_text_posts
from runtime.telemetry import configure_tracing
from runtime.temporal_client import connect
from stores.blob_backends import BlobStoreConfigError, open_blob_store
from stores.blob_store import BlobStore
from stores.vector_errors import VectorStoreConfigError
from stores.vector_stores import check_vector_store
from workflows.common.family import Family
from workflows.common.registration import Registry
from workflows.registry import FAMILIES, REGISTRY

log = logging.getLogger("api")


def create_app(
    settings: Settings | None = None,
    client: Client | None = None,
    registry: Registry = REGISTRY,
    families: tuple[Family, ...] = FAMILIES,
    blob_store: BlobStore | None = None,
) -> FastAPI:
    """The gateway for `families` (their routes and launchers) and `registry` (the workflows `/v1/runs` serves);
    pass `client` to reuse a connection (tests), else it connects in the lifespan; pass `blob_store` to use a store
    already opened, else the lifespan opens the one the settings name."""
    settings = settings or Settings()
    gateways = family_gateways(families)
    launchers: Launchers = all_launchers(gateways)
    keys = KeyRing.parse(settings.api_keys.get_secret_value())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.keys = keys
        app.state.blob_secret = await asyncio.to_thread(signing_secret, settings)
        share = principal_share(settings, keyed=keys.required)
        app.state.admission = Admission(
            settings.max_runs_in_flight, settings.max_runs_waiting, share, settings.waiting_runs_per_principal
        )
        app.state.rate_limiter = RateLimiter(settings.rate_limit_per_minute)
        app.state.failed_keys = FailedKeyThrottle(settings.failed_keys_per_minute)
        if blob_store is None:
            app.state.blobs = await asyncio.to_thread(open_blob_store, settings)
        else:
            app.state.blobs = blob_store
        services: list[Any] = []
        for gateway in gateways:
            if gateway.services is not None:
                for name, service in (await asyncio.to_thread(gateway.services, settings)).items():
                    setattr(app.state, name, service)
                    services.append(service)
        app.state.registry = registry
        app.state.launchers = launchers
        app.state.families = families
        app.state.intake = Intake()
        await app.state.intake.warm_up()
        app.state.temporal = client or await connect(settings, gateway=True)
        try:
            yield
        finally:
            await app.state.admission.close()
            app.state.intake.close()
            await asyncio.to_thread(close_services, services)

    app = FastAPI(
        title="Durable agents gateway",
        version="0.1.0",
        description="Starts agent workflows on Temporal, streams their events (SSE), serves runs, graphs and blobs.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    keyed = [Depends(rate_limited)]  # with API keys configured, everything but health and docs needs one
    app.include_router(runs.build_router(registry), dependencies=keyed)
    app.include_router(run_socket.router)  # checks the key itself, so a refusal reaches a browser as a message
    app.include_router(workflows.router, dependencies=keyed)
    app.include_router(blobs.router, dependencies=keyed)
    for gateway in gateways:
        for router in gateway.routers:
            app.include_router(router, dependencies=keyed)
    app.include_router(blobs.downloads)  # the signed URL is the key: it works in an <img src>
    for gateway in gateways:
        for router in gateway.capability_routers:
            app.include_router(router)  # the same: their signed URLs work in an <iframe src>
    app.include_router(console.router)  # the web console's static files: no data, no key
    app.include_router(live_text.router)  # the workers' live text: their shared secret is the key

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        """Alive: the gateway answers. Whether it can serve runs is `/readyz`."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"], responses={503: {"description": "NOT_READY, with each check"}})
    async def readyz(client: TemporalClient, blobs: Blobs) -> JSONResponse:
        """Ready: Temporal answers and the blob store is writable."""
        checks = await readiness(client, blobs)
        if all(ok for ok in checks.values()):
            return JSONResponse({"status": "ready", "checks": checks})
        raise ApiError(503, ErrorCode.NOT_READY, f"未就绪：{checks}", {"Retry-After": str(RETRY_TEMPORAL_SECONDS)})

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            app.openapi_schema = add_documented_schemas(document)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_middleware(BodyLimitMiddleware, limits=RouteLimits.of(app.openapi()))
    instrument(app)
    return app


def instrument(app: FastAPI, tracer_provider: TracerProvider | None = None) -> None:
    """OpenTelemetry for the gateway: a server span per request (none for `/healthz`), joined to the workflows' trace
    by the Temporal client's interceptor. Without a span per ASGI message: a streamed response sends one per event,
    and those spans carried nothing but their timing, at a cost on every event of every stream."""
    FastAPIInstrumentor.instrument_app(
        app, excluded_urls="healthz", exclude_spans=["receive", "send"], tracer_provider=tracer_provider
    )


READY_TIMEOUT = timedelta(seconds=2)


async def readiness(client: Client, blob_store: BlobStore) -> dict[str, bool]:
    """Each dependency the gateway needs, and whether it answers now."""
    try:
        await client.workflow_service.get_system_info(GetSystemInfoRequest(), timeout=READY_TIMEOUT)
        temporal = True
    except (RPCError, RuntimeError) as err:
        if not temporal_unavailable(err):
            raise
        temporal = False
    return {"temporal": temporal, "blobStore": await asyncio.to_thread(blob_store.writable)}


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings()
    try:
        keys = KeyRing.parse(settings.api_keys.get_secret_value())
    except KeyConfigError as err:
        raise SystemExit(f"gateway: {err}") from None
    if not keys.required:
        if not is_loopback(settings.api_host):
            raise SystemExit(
                f"gateway: no API_KEYS configured, refusing to listen on {settings.api_host} (anyone who can reach "
                "it could read and steer every run); set API_KEYS, or API_HOST=127.0.0.1 for single-user use"
            )
        log.warning("no API_KEYS: single-user mode (principal %r), listening on loopback only", LOCAL_PRINCIPAL)
    else:
        log.info("API keys for %d principals", len(keys.digests))
        if settings.blob_store == "s3" and not settings.blob_url_secret.get_secret_value():
            raise SystemExit(
                "gateway: BLOB_STORE=s3 needs BLOB_URL_SECRET: without it each gateway signs blob URLs with a random "
                "secret of its own in DATA_DIR, and a URL one gateway issued fails on another"
            )
    try:
        blob_store = open_blob_store(settings)
        check_vector_store(settings)
    except (BlobStoreConfigError, VectorStoreConfigError) as err:
        raise SystemExit(f"gateway: {err}") from None
    configure_tracing(settings, "gateway")
    app = create_app(settings, blob_store=blob_store)
    quiet_live_text_posts()  # a worker's live text comes several times a second per run
    uvicorn.run(
        app,
        host=settings.api_host,
        port=settings.api_port,
        log_level="info",
        http=HeaderDeadlineProtocol,
        limit_concurrency=settings.gateway_max_connections,
    )


if __name__ == "__main__":
    main()
