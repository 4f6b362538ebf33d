"""The LangGraph baseline as a server: a small FastAPI app with the gateway's chat endpoint, run by uvicorn.

`python -m tests.bench.baseline_server --port N [--durability sync]` serves, with DATA_DIR (from the environment,
like every process of this project) as its own data dir:

- `POST /api/agent/chat`: the gateway's request and response shape. JSON `{"text", "sessionId", ...}` (the
  project's `ChatRequest`, prepared by the gateway's own `prepare_turn`), answered with SSE (`id:`, `event:`,
  `data:` written by the gateway's own `format_sse`, the same `RunEvent` envelope and event types) ending with
  `stream_end`, and the `X-Run-Id` / `X-Session-Id` headers. Each turn is one run of the graph of
  `tests.bench.baseline` with `thread_id` = the run id (`image-<session>-<turn>`), checkpointed by LangGraph's
  `AsyncSqliteSaver` into `DATA_DIR/checkpoints.sqlite` after every step (`durability="sync"` by default: a step's
  checkpoint is committed before the next step starts, as Temporal records an activity's result before the
  workflow goes on). A run has the workflow's deadline (`Settings.run_deadline_seconds`).
- Sessions as the session workflow keeps them: one turn at a time per session (a turn sent while another runs
  gets a `queued` event first), the last messages and the last image, stored with LangGraph's `AsyncSqliteStore`
  in `DATA_DIR/sessions.sqlite` (one write when a turn starts, one when it ends).
- `GET /v1/runs/{run_id}`: the nodes the run executed and how many checkpoints it wrote; `GET /v1/blobs/{key}`
  serves the images the events link to; `GET /healthz`.

`running_baseline()` starts this server as a process of its own on a free port, for the benchmark.
"""

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast, get_args

import httpx
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.sqlite.aio import AsyncSqliteStore
from langgraph.types import Durability
from pydantic import BaseModel, Field, ValidationError

from api.blob_urls import BLOB_ROUTE, BlobLinks
from api.launch import PrepareContext
from api.principals import LOCAL_PRINCIPAL
from api.routes.image import prepare_turn
from api.streaming import SSE_HEADERS, format_sse
from models.errors import ErrorCode, ErrorInfo
from models.events import RunEvent, RunStatus
from models.image.events import IMAGE_EVENTS, Queued
from models.image.requests import ChatRequest
from models.image.state import Message, PreviousResult, UserInput
from models.settings import Settings
from stores.blob_store import CONTENT_TYPES, BlobNotFoundError, LocalBlobStore
from tests.bench.baseline import (
    NodeEvent,
    NodeFunctions,
    TurnState,
    build_graph,
    error_handler_events,
    event,
    initial_state,
    terminal_event,
    turn_result,
)
from tests.stack_process import REPO, free_port
from workflows.common.graph import START
from workflows.image.graph import VALIDATE_INPUT
from workflows.image.session import MAX_MESSAGES, MAX_REMEMBERED_CHARS, PLANNER_CONTEXT_MESSAGES, turn_workflow_id

CHECKPOINTS_FILE = "checkpoints.sqlite"
SESSIONS_FILE = "sessions.sqlite"
SESSIONS = ("sessions",)
STATE_TYPES = (
    ("models.image.state", "UserInput"),
    ("models.image.state", "MaskRef"),
    ("models.image.state", "Message"),
    ("models.image.state", "PreviousResult"),
    ("models.image.state", "Intent"),
    ("models.image.state", "EnhancedPrompt"),
    ("models.image.state", "RetrievedStyle"),
    ("models.image.state", "ExecutionResult"),
    ("models.image.state", "QualityCheck"),
    ("models.image.state", "CriticCheck"),
    ("models.image.nodes", "RagRequest"),
    ("models.image.genui", "GenUIComponent"),
    ("models.errors", "ErrorInfo"),
    ("models.blobs", "ImageRef"),
)
"""The project's models the state holds: allowed back out of a checkpoint when a run is read or resumed."""

Graph = CompiledStateGraph[TurnState, None, TurnState, TurnState]


class SessionRecord(BaseModel):
    """A session as `ImageSessionWorkflow` keeps it: turns so far, recent messages, the last image."""

    turns: int = 0
    messages: list[Message] = Field(default_factory=list)
    previous: PreviousResult | None = None


class Sessions:
    """Sessions in LangGraph's SQLite store; one turn at a time per session (the others wait, `queued`)."""

    def __init__(self, store: AsyncSqliteStore) -> None:
        self._store = store
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._active: defaultdict[str, int] = defaultdict(int)

    async def _load(self, session_id: str) -> SessionRecord:
        item = await self._store.aget(SESSIONS, session_id)
        return SessionRecord.model_validate(item.value) if item else SessionRecord()

    async def _save(self, session_id: str, record: SessionRecord) -> None:
        await self._store.aput(SESSIONS, session_id, record.model_dump(mode="json"), index=False)

    async def submit(self, session_id: str, text: str) -> tuple[int, int, SessionRecord | None]:
        """Number the turn; a turn that can start now is remembered at once and gets its context
        (messages before its own, the last image). Returns (turn, runs ahead of it, context or None)."""
        position = self._active[session_id]
        self._active[session_id] += 1
        record = await self._load(session_id)
        record.turns += 1
        context = None
        if position == 0:
            context = record.model_copy()
            record.messages = _remembered(record.messages, "user", text)
        await self._save(session_id, record)
        return record.turns, position, context

    async def begin(self, session_id: str, text: str) -> SessionRecord:
        """A queued turn's go-ahead: it is remembered now, and gets the context as of now."""
        record = await self._load(session_id)
        context = record.model_copy()
        record.messages = _remembered(record.messages, "user", text)
        await self._save(session_id, record)
        return context

    async def finish(self, session_id: str, reply: str, previous: PreviousResult | None) -> None:
        record = await self._load(session_id)
        record.messages = _remembered(record.messages, "assistant", reply)
        if previous is not None:
            record.previous = previous
        await self._save(session_id, record)

    def lock(self, session_id: str) -> asyncio.Lock:
        return self._locks[session_id]

    def done(self, session_id: str) -> None:
        self._active[session_id] -= 1


def _remembered(messages: list[Message], role: str, text: str) -> list[Message]:
    message = Message.model_validate(
        {"role": role, "content": text[:MAX_REMEMBERED_CHARS], "timestamp": datetime.now(UTC)}
    )
    return [*messages, message][-MAX_MESSAGES:]


@dataclass
class Turn:
    """One chat message on its way: its run, its session and where it stands in the session's queue."""

    run_id: str
    session_id: str
    user_input: UserInput
    position: int
    context: SessionRecord | None


class Baseline:
    """The server's resources: the compiled graph with its checkpointer, the sessions, the blob store."""

    def __init__(self, graph: Graph, saver: AsyncSqliteSaver, sessions: Sessions, settings: Settings) -> None:
        self.graph = graph
        self.saver = saver
        self.sessions = sessions
        self.settings = settings
        self.blobs = LocalBlobStore(settings.blob_dir)
        self.links = BlobLinks(
            settings.base_url, None, LOCAL_PRINCIPAL, self.blobs, settings.blob_url_ttl_seconds, IMAGE_EVENTS
        )

    async def stream(self, turn: Turn, durability: Durability) -> AsyncIterator[str]:
        """The turn's events as SSE, numbered from 0, ending with `stream_end`."""
        seq = 0

        def sse(item: NodeEvent) -> str:
            nonlocal seq
            data = item.payload.model_dump(mode="json", by_alias=True, exclude_none=True)
            envelope = RunEvent(
                seq=seq,
                type=item.type,
                node=item.node,
                data=data,
                ts=item.ts,
                terminal=item.type == IMAGE_EVENTS.terminal,
            )
            seq += 1
            return format_sse(envelope, self.links)

        sessions = self.sessions
        try:
            if turn.position > 0:
                waiting = f"前面还有 {turn.position} 个请求，排队中..."
                yield sse(event("queued", START, Queued(position=turn.position, message=waiting)))
            async with sessions.lock(turn.session_id):
                context = turn.context or await sessions.begin(turn.session_id, turn.user_input.text)
                state = initial_state(
                    turn.session_id,
                    turn.user_input,
                    context.messages[-PLANNER_CONTEXT_MESSAGES:],
                    context.previous,
                )
                config: Any = {"configurable": {"thread_id": turn.run_id}}
                final: TurnState = state
                current = VALIDATE_INPUT  # the node of the latest event: the one in flight when time runs out
                status: RunStatus
                try:
                    async with asyncio.timeout(self.settings.run_deadline_seconds):
                        async for mode, chunk in self.graph.astream(
                            state, config, stream_mode=["custom", "values"], durability=durability
                        ):
                            if mode == "custom":
                                current = cast(NodeEvent, chunk).node
                                yield sse(cast(NodeEvent, chunk))
                            else:
                                final = cast(TurnState, chunk)
                except TimeoutError:
                    seconds = self.settings.run_deadline_seconds
                    message = f"任务超时：单次运行最长 {seconds:g} 秒"
                    error = ErrorInfo(code=ErrorCode.WORKFLOW_TIMEOUT, message=message, node=current)
                    for item in error_handler_events(error):
                        yield sse(item)
                    final = cast(TurnState, {**final, "error": error})
                    status = "timeout"
                else:
                    status = "failed" if final.get("error") else "completed"
                yield sse(terminal_event(status, final.get("error")))
                result = turn_result(final)
                await sessions.finish(turn.session_id, result.reply, result.previous)
        finally:
            sessions.done(turn.session_id)

    async def run_view(self, run_id: str) -> dict[str, Any]:
        """What the benchmark reads of a run: the nodes it executed and the checkpoints it wrote."""
        config: Any = {"configurable": {"thread_id": run_id}}
        snapshot = await self.graph.aget_state(config)
        checkpoints = [c async for c in self.saver.alist(config)]
        path = list(snapshot.values.get("path", []))
        return {"runId": run_id, "nodes": path, "nodeCount": len(path), "checkpoints": len(checkpoints)}


def create_app(settings: Settings, durability: Durability = "sync") -> FastAPI:
    """The baseline's app over `settings.data_dir`."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        data = settings.data_dir
        data.mkdir(parents=True, exist_ok=True)
        serde = JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)
        async with (
            AsyncSqliteSaver.from_conn_string(str(data / CHECKPOINTS_FILE)) as saver,
            AsyncSqliteStore.from_conn_string(str(data / SESSIONS_FILE)) as store,
        ):
            saver.serde = serde
            await saver.setup()
            await store.setup()
            graph = build_graph(NodeFunctions.build(settings)).compile(checkpointer=saver)
            app.state.baseline = Baseline(graph, saver, Sessions(store), settings)
            yield

    app = FastAPI(title="LangGraph baseline of the image agent", lifespan=lifespan)

    @app.post("/api/agent/chat", response_model=None)
    async def chat(request: Request) -> Response:
        baseline: Baseline = request.app.state.baseline
        try:
            body = ChatRequest.model_validate_json(await request.body())
        except ValidationError as err:
            problem = {"code": ErrorCode.INVALID_REQUEST, "message": "请求格式不正确", "details": err.errors()}
            return JSONResponse({"error": problem}, status_code=422)
        user_input = prepare_turn(body, PrepareContext(baseline.blobs, baseline.settings, baseline.links))
        session_id = body.session_id or os.urandom(6).hex()
        number, position, context = await baseline.sessions.submit(session_id, user_input.text)
        run_id = turn_workflow_id(session_id, number, os.urandom(5).hex())
        turn = Turn(run_id, session_id, user_input, position, context)
        return StreamingResponse(
            baseline.stream(turn, durability),
            media_type="text/event-stream",
            headers=SSE_HEADERS | {"X-Run-Id": turn.run_id, "X-Session-Id": session_id},
        )

    @app.get("/v1/runs/{run_id}")
    async def run(run_id: str, request: Request) -> dict[str, Any]:
        baseline: Baseline = request.app.state.baseline
        return await baseline.run_view(run_id)

    @app.get(BLOB_ROUTE + "{key:path}")
    async def blob(key: str, request: Request) -> Response:
        baseline: Baseline = request.app.state.baseline
        try:
            content = await baseline.blobs.aget(key)
        except BlobNotFoundError:
            return JSONResponse({"error": {"code": ErrorCode.BLOB_NOT_FOUND, "message": key}}, status_code=404)
        return Response(content, media_type=CONTENT_TYPES.get(key.rsplit(".", 1)[-1], "application/octet-stream"))

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


@dataclass(frozen=True)
class BaselineProcess:
    """A running baseline server: where it listens and its pid."""

    url: str
    pid: int


@contextmanager
def running_baseline(
    data_dir: Path, log: Path, durability: Durability = "sync", startup_timeout: float = 60.0
) -> Iterator[BaselineProcess]:
    """The baseline server as a process of its own on a free port, stopped (SIGTERM) when the block ends."""
    port = free_port()
    env = os.environ | {"DATA_DIR": str(data_dir.resolve()), "API_PORT": str(port), "PYTHONUNBUFFERED": "1"}
    argv = [sys.executable, "-m", "tests.bench.baseline_server", "--port", str(port), "--durability", durability]
    with log.open("wb") as out:
        process = subprocess.Popen(argv, cwd=REPO, env=env, stdout=out, stderr=out)
        server = BaselineProcess(url=f"http://127.0.0.1:{port}", pid=process.pid)
        try:
            deadline = time.monotonic() + startup_timeout
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"the baseline exited early:\n{log.read_text()}")
                try:
                    if httpx.get(f"{server.url}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the baseline did not come up in {startup_timeout:g} s:\n{log.read_text()}")
                time.sleep(0.25)
            yield server
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description="The LangGraph baseline of the image agent (SSE chat endpoint).")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--durability", choices=get_args(Durability), default="sync")
    args = parser.parse_args()
    settings = Settings(api_port=args.port, api_host="127.0.0.1")
    uvicorn.run(create_app(settings, args.durability), host="127.0.0.1", port=args.port, log_level="info")


if __name__ == "__main__":
    main()
