"""Connecting to Temporal the one way every process does: pydantic data converter and the tracing interceptor;
with `OTEL_EXPORTER=otlp`, the worker's runtime also exports its metrics (Temporal's own and the workflows',
such as `content.precondition_corrections`) to the OTLP collector."""

from functools import cache

from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import OpenTelemetryConfig, Runtime, TelemetryConfig
from temporalio.service import RetryConfig

from models.settings import Settings

GATEWAY_RPC_RETRIES = RetryConfig(max_elapsed_time_millis=3000)
"""A person waits on the gateway's calls: an unreachable Temporal is reported (503) after 3 s, not after 10."""


async def connect(settings: Settings, *, gateway: bool = False) -> Client:
    """`gateway`: connect on first use (the gateway starts, and answers 503, while Temporal is not up yet) and
    retry an unreachable server for 3 s only."""
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
        interceptors=[TracingInterceptor()],
        lazy=gateway,
        retry_config=GATEWAY_RPC_RETRIES if gateway else None,
        runtime=None if gateway else metrics_runtime(settings.otel_exporter, settings.otel_endpoint),
    )


@cache
def metrics_runtime(exporter: str, endpoint: str | None) -> Runtime | None:
    """One runtime per process that sends metrics over OTLP/HTTP when the exporter is `otlp`; else the default."""
    if exporter != "otlp":
        return None
    url = f"{(endpoint or 'http://localhost:4318').rstrip('/')}/v1/metrics"
    return Runtime(telemetry=TelemetryConfig(metrics=OpenTelemetryConfig(url=url, http=True)))
