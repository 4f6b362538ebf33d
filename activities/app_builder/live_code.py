"""A writing agent's code on screen while the model writes it: the `content` of each `write_file` call in a task
turn's stream, posted as the run's live text (`activities.common.live_text`, `content_live` pieces) under the
task's name, each file after a line that names its path.

Live only, by design: the file reaches the run as a blob when its call is run, and a file's text never goes through
the workflow's history (ARCHITECTURE rule 4), so there are no `content` events for it. A reader connected while the
model writes sees the code as it comes (one who connects mid-call gets the call's text so far from the gateway);
afterwards the files are in the workspace. A worker that posts no live text streams no code.
"""

from temporalio import activity

from activities.common.live_text import LiveText, live_text
from llm.json_stream import JsonStrings
from llm.types import StreamEvent, ToolCallDelta, ToolCallStart
from models.app_builder.plan import ExecutionPlanTask
from models.streaming import StreamTarget

WRITE_FILE = "write_file"


def live_code(task: ExecutionPlanTask) -> "LiveCode | None":
    """The running task turn's live code, under "<task id> · <agent>"; None when the worker posts no live text."""
    info = activity.info()
    target = StreamTarget(workflow_id=info.workflow_id, run_id=info.workflow_run_id)
    live = live_text(target, f"{task.id} · {task.agent_id}"[:100])
    return None if live is None else LiveCode(live)


class LiveCode:
    """Reads a turn's stream events (`on_event`) and posts the files its `write_file` calls are writing."""

    def __init__(self, live: LiveText) -> None:
        self._live = live
        self._calls: dict[str, JsonStrings] = {}
        """The `write_file` calls of this turn, by call id: their arguments as they are written."""
        self._paths: dict[str, str] = {}
        """Each call's path so far; a call's header is posted when its path is complete, unless its code began."""
        self._coding: set[str] = set()
        """Calls whose code has begun."""
        self._posted = False

    def on_event(self, event: StreamEvent) -> None:
        if isinstance(event, ToolCallStart):
            if event.name == WRITE_FILE:
                self._calls[event.id] = JsonStrings()
            return
        if not isinstance(event, ToolCallDelta) or event.id not in self._calls:
            return
        for piece in self._calls[event.id].feed(event.arguments_delta):
            if piece.path == ("path",) and event.id not in self._coding:
                self._paths[event.id] = self._paths.get(event.id, "") + piece.text
                if piece.last:
                    self._post(f"── {self._paths[event.id]} ──\n", header=True)
            elif piece.path == ("content",):
                self._coding.add(event.id)
                self._post(piece.text)

    def _post(self, text: str, *, header: bool = False) -> None:
        if not text:
            return
        if header and self._posted:
            text = "\n\n" + text
        self._live.add(text)
        self._posted = True
