"""OpenTelemetry: one trace links the gateway request, the workflows and their activities."""

from pathlib import Path

import httpx
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.testing import WorkflowEnvironment

from api.server import create_app
from stores.style_store import LanceStyleStore
from tests.sse import parse_sse
from tests.workflows.harness import settings_for, terminate_running
from worker import build_activities, running_workers


async def test_one_trace_links_request_workflows_and_activities(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    config = env.client.config()
    config["interceptors"] = [TracingInterceptor()]
    client = Client(**config)
    settings = settings_for(tmp_path)
    app = create_app(settings, client=client)
    activities = build_activities(settings, style_store=api_style_store)

    async with (
        running_workers(client, settings, activities),
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as http,
    ):
        response = await http.post("/api/agent/chat", json={"text": "生成一只赛博朋克风格的猫", "sessionId": "traced"})
        assert parse_sse(response.text)[-1].event == "stream_end"
        await terminate_running(client, {"session-local-traced"})
    provider.force_flush()

    spans = exporter.get_finished_spans()
    request = next(s for s in spans if s.name.startswith("POST /api/agent/chat") and s.parent is None)
    in_trace = {s.name for s in spans if s.context.trace_id == request.context.trace_id}
    expected = {
        "RunWorkflow:ImageSessionWorkflow",
        "RunActivity:image.start_turn",
        "StartWorkflow:ImageAgentWorkflow",
        "RunWorkflow:ImageAgentWorkflow",
        "RunActivity:image.planner",
        "RunActivity:image.rag",
        "RunActivity:image.executor",
        "RunActivity:image.critic",
    }
    assert expected <= in_trace, f"missing from the request's trace: {expected - in_trace}"
