"""Spans that would only be noise are not made: the gateway's instrumentation makes one span per request, not one
per ASGI message (an SSE stream is one send per event), and the worker's live-text posts, which carry pieces of
many runs, make no HTTP client span under whichever activity started the poster."""

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from activities.common.live_text import LivePoster
from api.server import instrument
from models.streaming import LIVE_TEXT_PATH, LivePiece
from tests.api.sockets import on_a_socket


@pytest.fixture
def traced() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


async def test_a_streamed_response_is_one_server_span(traced: tuple[TracerProvider, InMemorySpanExporter]) -> None:
    provider, exporter = traced
    app = FastAPI()

    @app.get("/stream")
    async def stream() -> StreamingResponse:
        async def events() -> AsyncIterator[str]:
            for n in range(20):
                yield f"data: {n}\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    instrument(app, tracer_provider=provider)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as http:
            response = await http.get("/stream")
    finally:
        FastAPIInstrumentor.uninstrument_app(app)
    assert response.text.count("data:") == 20
    names = [span.name for span in exporter.get_finished_spans()]
    assert names == ["GET /stream"], names


async def test_live_text_posts_make_no_client_spans(traced: tuple[TracerProvider, InMemorySpanExporter]) -> None:
    provider, exporter = traced
    received: list[dict[str, object]] = []
    gateway = FastAPI()

    @gateway.post(LIVE_TEXT_PATH)
    async def take(request: Request) -> dict[str, bool]:
        received.append(await request.json())
        return {"ok": True}

    @gateway.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    instrumentor = HTTPXClientInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        async with on_a_socket(gateway) as ws_base:
            base = ws_base.replace("ws://", "http://")
            poster = LivePoster([base], "secret")
            try:
                piece = LivePiece(workflow_id="w", agent="writer", call="1", attempt=1, round=0, offset=0, text="雨夜")
                with provider.get_tracer("test").start_as_current_span("RunActivity:writing.writer"):
                    poster.send(piece)
                for _ in range(200):
                    if received:
                        break
                    await asyncio.sleep(0.01)
                async with httpx.AsyncClient() as http:  # an ordinary request: traced, so instrumentation is on
                    assert (await http.get(f"{base}/healthz")).status_code == 200
            finally:
                await poster.aclose()
    finally:
        instrumentor.uninstrument()
    assert received and received[0]["pieces"][0]["text"] == "雨夜"  # type: ignore[index]
    client_spans = [span.name for span in exporter.get_finished_spans() if span.name in ("GET", "POST")]
    assert client_spans == ["GET"], client_spans
