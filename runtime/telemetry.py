"""OpenTelemetry set-up: one tracer provider per process, exporter chosen in settings (none, console, OTLP)."""

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

from models.settings import Settings


def configure_tracing(settings: Settings, process: str) -> TracerProvider:
    """Install the global tracer provider; with exporter "none" spans are still made (and propagated) but dropped."""
    provider = TracerProvider(
        resource=Resource.create({"service.name": settings.otel_service_name, "service.instance.role": process})
    )
    exporter = _exporter(settings)
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return provider


def _exporter(settings: Settings) -> SpanExporter | None:
    if settings.otel_exporter == "console":
        return ConsoleSpanExporter()
    if settings.otel_exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        endpoint = f"{settings.otel_endpoint.rstrip('/')}/v1/traces" if settings.otel_endpoint else None
        return OTLPSpanExporter(endpoint=endpoint)
    return None
