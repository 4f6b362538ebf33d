"""A stream whose run has no worker to answer its queries (the worker was killed and no successor has the run
yet): the gateway waits and goes on, or ends the stream with what history had; any other failure to read the run
ends the stream with `STREAM_INTERRUPTED` and the last event id, never with a response cut mid-body."""

from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from api import streaming
from api.blob_urls import BlobLinks
from tests.sse import parse_sse
from tests.workflows.common.conftest import tiny_family
from tests.workflows.common.test_human_input import question_of
from tests.workflows.common.tiny_models import AskInput

LINKS = BlobLinks(base_url="http://gateway", secret=None, principal="anonymous")


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
