"""Connecting to Temporal the one way every process does: pydantic data converter and the tracing interceptor."""

from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.contrib.pydantic import pydantic_data_converter
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
    )
