"""What the streamed-answer tests of every family share: an answer as the pieces a model streams it in, a stream
cut before its end, the text a client shows of `content` events, and whether an activity's text reached the run
(`content_delta` signals) while the activity ran (history order)."""

import json
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle

from models.streaming import CONTENT_SIGNAL
from tests.llm.answers import chat_stream
from tests.llm.loopback import Fixture


def streamed(document: Any, size: int = 7) -> list[str]:
    """An answer (a JSON document, or text) as the pieces a model streams it in."""
    text = document if isinstance(document, str) else json.dumps(document, ensure_ascii=False)
    return [text[i : i + size] for i in range(0, len(text), size)]


def cut_stream(pieces: list[str]) -> Fixture:
    """A stream that carries `pieces` and ends without its finish chunk and end marker (a dropped connection)."""
    whole = chat_stream(pieces)
    body = whole.body[: whole.body.index(b'"finish_reason": "stop"')]
    return Fixture(status=200, headers=whole.headers, body=body[: body.rindex(b"data: ")])


def shown_text(pieces: list[dict[str, Any]]) -> str:
    """The text a client shows of `content` events' data: each restart replaces what came before it."""
    text = ""
    for piece in pieces:
        text = piece["text"] if piece.get("restart") else text + piece["text"]
    return text


async def streamed_while_running(handle: WorkflowHandle[Any, Any], activity_type: str) -> bool:
    """Whether a `content_delta` signal reached the run between the scheduling of an `activity_type` activity and
    its completion."""
    history = [e async for e in handle.fetch_history_events()]
    signalled = [
        e.event_id
        for e in history
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
        and e.workflow_execution_signaled_event_attributes.signal_name == CONTENT_SIGNAL
    ]
    scheduled = {
        e.event_id
        for e in history
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and e.activity_task_scheduled_event_attributes.activity_type.name == activity_type
    }
    return any(
        start < event < e.event_id
        for e in history
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
        and (start := e.activity_task_completed_event_attributes.scheduled_event_id) in scheduled
        for event in signalled
    )
