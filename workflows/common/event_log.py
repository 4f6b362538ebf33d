"""A workflow's progress log: typed events appended to its `WorkflowStream` (ARCHITECTURE rule 6).

The stream (temporalio.contrib.workflow_streams) keeps the events in the workflow, answers polls and queries for
the events after an offset, and survives worker restarts by replay. Every event goes to one topic and only the
workflow publishes, so an event's `seq` is exactly its stream offset: the gateway uses it as the SSE `id:`.
"""

from typing import Any

from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream

with workflow.unsafe.imports_passed_through():
    from models.events import EVENTS_TOPIC, AgentEvent, EventType


class EventLog:
    def __init__(self, stream: WorkflowStream) -> None:
        self._topic = stream.topic(EVENTS_TOPIC, type=AgentEvent)
        self._next_seq = 0

    def emit(self, type: EventType, node: str, data: dict[str, Any]) -> AgentEvent:
        event = AgentEvent(seq=self._next_seq, type=type, node=node, data=data, ts=workflow.now())
        self._topic.publish(event)
        self._next_seq += 1
        return event

    def thought(self, node: str, message: str, **extra: Any) -> None:
        self.emit("thought_log", node, {"node": node, "message": message, **extra})

    def progress(self, node: str, message: str, percent: int) -> None:
        self.emit("progress", node, {"node": node, "message": message, "percent": percent})
