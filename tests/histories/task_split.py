"""History surgery for the shape a Temporal server restart left in an image turn
(../shared/evidence/image-turn-after-temporal-restart.history.json): a workflow task completed with only a local
activity's marker, and what the workflow did with that activity's result came in the next workflow task.

`split_after_local_activity` makes that shape from a history recorded the ordinary way: after the local-activity
marker it inserts a workflow task (scheduled, started, completed) and renumbers the events after it, with the ids that
point at them. A replay of the result resolves the local activity where the original run did not yet see it.
"""

import copy
from typing import Any

from temporalio.client import WorkflowHistory

MARKER = "EVENT_TYPE_MARKER_RECORDED"
LOCAL_ACTIVITY_MARKER = "core_local_activity"
TASK_EVENTS = (
    "EVENT_TYPE_WORKFLOW_TASK_SCHEDULED",
    "EVENT_TYPE_WORKFLOW_TASK_STARTED",
    "EVENT_TYPE_WORKFLOW_TASK_COMPLETED",
)
EVENT_ID_FIELDS = {"scheduledEventId", "startedEventId", "workflowTaskCompletedEventId", "initiatedEventId"}


def local_activity_markers(history: WorkflowHistory) -> list[int]:
    """The event ids of the history's local-activity markers."""
    return [
        int(event["eventId"])
        for event in history.to_json_dict()["events"]
        if event["eventType"] == MARKER
        and event["markerRecordedEventAttributes"]["markerName"] == LOCAL_ACTIVITY_MARKER
    ]


def split_after_local_activity(history: WorkflowHistory, marker_id: int) -> WorkflowHistory:
    """`history` with a workflow task of its own ending right after the local-activity marker `marker_id`."""
    recorded = copy.deepcopy(history.to_json_dict())
    events: list[dict[str, Any]] = recorded["events"]
    at = next(i for i, event in enumerate(events) if int(event["eventId"]) == marker_id)
    task = [copy.deepcopy(next(e for e in events if e["eventType"] == kind)) for kind in TASK_EVENTS]
    renumbered = {int(event["eventId"]): int(event["eventId"]) + len(TASK_EVENTS) for event in events[at + 1 :]}
    for event in events:
        event["eventId"] = str(renumbered.get(int(event["eventId"]), int(event["eventId"])))
        _point_at(event, renumbered)
    scheduled = marker_id + 1
    for offset, event in enumerate(task):
        event["eventId"] = str(scheduled + offset)
    task[1]["workflowTaskStartedEventAttributes"]["scheduledEventId"] = str(scheduled)
    completed = task[2]["workflowTaskCompletedEventAttributes"]
    completed["scheduledEventId"], completed["startedEventId"] = str(scheduled), str(scheduled + 1)
    recorded["events"] = events[: at + 1] + task + events[at + 1 :]
    return WorkflowHistory.from_json(history.workflow_id, recorded)


def _point_at(node: Any, renumbered: dict[int, int]) -> None:
    """Rewrite, inside an event's attributes, every id of an event that moved."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in EVENT_ID_FIELDS and str(value).isdigit() and int(value) in renumbered:
                node[key] = str(renumbered[int(value)])
            else:
                _point_at(value, renumbered)
    elif isinstance(node, list):
        for item in node:
            _point_at(item, renumbered)
