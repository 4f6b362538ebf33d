"""A run with no worker to answer its queries (the worker was killed and no successor has the run yet): its stream
waits and goes on, or ends with what history had; a history read the server cancels is read again and the stream
goes on (unless the server goes on cancelling); any other failure to read the run ends the stream with
`STREAM_INTERRUPTED` and the last event id, never with a response cut mid-body; and reading its state answers 503
`WORKER_UNAVAILABLE` within the query timeout instead of hanging."""

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.api.workflowservice.v1 import GetWorkflowExecutionHistoryResponse
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from api import streaming
from api.blob_urls import BlobLinks
from api.routes import runs
from api.server import create_app
from models.human_input import InputAnswer
from stores.blob_store import LocalBlobStore
from tests.sse import parse_sse
from tests.workflows.common.conftest import tiny_family
from tests.workflows.common.tiny import TINY_ACTIVITIES, TINY_WORKFLOWS
from tests.workflows.common.tiny_models import AskInput
from tests.workflows.harness import question_of, settings_for, terminate_running
from worker import running_workers
from workflows.common.human_input import INPUT_UPDATE
from workflows.common.registration import Registry
from workflows.registry import REGISTRY

LINKS = BlobLinks(
    base_url="http://gateway", secret=None, principal="anonymous", blobs=LocalBlobStore(Path("unused")), ttl_seconds=60
)


async def test_a_closed_run_whose_worker_is_gone_streams_what_history_has_and_ends(
    dev_env: WorkflowEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streaming, "QUERY_TIMEOUT", timedelta(milliseconds=300))
    async with tiny_family(dev_env, tmp_path) as tiny:
        handle = await tiny.start("AskWorkflow", AskInput(linger_seconds=3600))
        await question_of(handle)
    # the worker has stopped and the run was terminated: its closing events were never published, and no worker
    # is there to answer the events query

    text = "".join([chunk async for chunk in streaming.sse_stream(dev_env.client, handle.id, LINKS)])

    events = parse_sse(text)
    assert [e.id for e in events] == list(range(len(events))) and events, "the published events, in order"
    assert "user_input_required" in {e.event for e in events}
    assert "error" not in {e.event for e in events}


async def test_a_run_that_cannot_be_read_ends_its_stream_with_stream_interrupted(
    dev_env: WorkflowEnvironment,
) -> None:
    text = "".join([chunk async for chunk in streaming.sse_stream(dev_env.client, "no-such-run", LINKS)])

    events = parse_sse(text)
    assert [e.event for e in events] == ["error"]
    assert events[0].data["code"] == "STREAM_INTERRUPTED" and events[0].data["lastEventId"] == -1


async def test_a_history_read_the_server_cancels_is_read_again_and_the_stream_goes_on_to_the_end(
    dev_env: WorkflowEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = dev_env.client.workflow_service
    read_history = service.get_workflow_execution_history
    reads: list[RPCStatusCode | None] = []

    async def cancelled_once(*args: Any, **kwargs: Any) -> GetWorkflowExecutionHistoryResponse:
        """The real read, except that the second one (the long poll after the first page) is cancelled by the
        server, as a frontend does now and then."""
        if len(reads) == 1:
            reads.append(RPCStatusCode.CANCELLED)
            raise RPCError("context canceled", RPCStatusCode.CANCELLED, b"")
        reads.append(None)
        return await read_history(*args, **kwargs)

    monkeypatch.setattr(service, "get_workflow_execution_history", cancelled_once)
    async with tiny_family(dev_env, tmp_path) as tiny:
        handle = await tiny.start("AskWorkflow", AskInput())
        chunks: list[str] = []

        async def read_stream() -> None:
            async for chunk in streaming.sse_stream(dev_env.client, handle.id, LINKS):
                chunks.append(chunk)

        reading = asyncio.create_task(read_stream())
        asked = await question_of(handle)
        await handle.execute_update(INPUT_UPDATE, InputAnswer(answer="red", question_id=asked.question_id))
        await asyncio.wait_for(reading, timeout=30)

    events = parse_sse("".join(chunks))
    assert RPCStatusCode.CANCELLED in reads and len(reads) > 2, "the cancelled read happened and was read again"
    assert "error" not in {e.event for e in events}, events[-1].data
    assert [e.id for e in events] == list(range(len(events))), "every event once, in order"
    assert "user_input_required" in {e.event for e in events}
    assert events[-1].data["terminal"] is True, "the stream ends with the run's terminal event"


async def test_history_reads_the_server_keeps_cancelling_end_the_stream_with_stream_interrupted(
    dev_env: WorkflowEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streaming, "RECONNECT_SECONDS", 0.5)
    reads = 0

    async def always_cancelled(*args: Any, **kwargs: Any) -> GetWorkflowExecutionHistoryResponse:
        nonlocal reads
        reads += 1
        raise RPCError("context canceled", RPCStatusCode.CANCELLED, b"")

    async with tiny_family(dev_env, tmp_path) as tiny:
        handle = await tiny.start("AskWorkflow", AskInput())
        await question_of(handle)
        monkeypatch.setattr(dev_env.client.workflow_service, "get_workflow_execution_history", always_cancelled)
        text = "".join([chunk async for chunk in streaming.sse_stream(dev_env.client, handle.id, LINKS)])

    events = parse_sse(text)
    assert reads > 1, "read again before giving up"
    assert [e.event for e in events] == ["error"]
    assert events[0].data["code"] == "STREAM_INTERRUPTED" and events[0].data["lastEventId"] == -1


async def test_the_state_of_a_run_no_worker_answers_for_is_a_503_to_retry_not_a_hang(
    dev_env: WorkflowEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runs, "QUERY_TIMEOUT", timedelta(milliseconds=500))
    settings = settings_for(tmp_path)
    app = create_app(settings, client=dev_env.client, registry=REGISTRY.extended(*TINY_WORKFLOWS))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as http,
    ):
        async with running_workers(dev_env.client, settings, TINY_ACTIVITIES, Registry(TINY_WORKFLOWS)):
            started = await http.post("/v1/runs", json={"workflow": "AskWorkflow", "input": {"lingerSeconds": 3600}})
            run_id = started.json()["runId"]
            for _ in range(100):
                view = await http.get(f"/v1/runs/{run_id}")
                if view.status_code == 200 and view.json()["awaitingInput"]:
                    break
            assert view.status_code == 200 and view.json()["awaitingInput"], view.text
        try:
            # the worker is gone; the run still waits for its answer
            response = await http.get(f"/v1/runs/{run_id}")
        finally:
            await terminate_running(dev_env.client, {run_id})

    assert response.status_code == 503 and response.json()["error"]["code"] == "WORKER_UNAVAILABLE"
    assert response.headers["retry-after"]


async def test_a_query_the_server_cuts_off_at_its_deadline_is_a_503_to_retry_not_a_500(
    dev_env: WorkflowEnvironment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker busy past the query's deadline (or one just killed): the server may reset the call's HTTP/2 stream
    at that deadline before the SDK's own timeout fires. It is the same unanswered query, not a gateway failure."""
    settings = settings_for(tmp_path)
    app = create_app(settings, client=dev_env.client, registry=REGISTRY.extended(*TINY_WORKFLOWS))
    service = dev_env.client.workflow_service
    queries = 0

    async def cut_off(*args: Any, **kwargs: Any) -> Any:
        nonlocal queries
        queries += 1
        raise RPCError("h2 protocol error: http2 error", RPCStatusCode.CANCELLED, b"")

    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as http,
        running_workers(dev_env.client, settings, TINY_ACTIVITIES, Registry(TINY_WORKFLOWS)),
    ):
        started = await http.post("/v1/runs", json={"workflow": "AskWorkflow", "input": {"lingerSeconds": 3600}})
        run_id = started.json()["runId"]
        try:
            await question_of(dev_env.client.get_workflow_handle(run_id))
            monkeypatch.setattr(service, "query_workflow", cut_off)
            response = await http.get(f"/v1/runs/{run_id}")
        finally:
            monkeypatch.undo()
            await terminate_running(dev_env.client, {run_id})

    assert queries == 1, "the state was asked of the run's worker"
    assert response.status_code == 503 and response.json()["error"]["code"] == "WORKER_UNAVAILABLE", response.text
    assert response.headers["retry-after"]
