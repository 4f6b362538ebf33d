"""DashScope's image API as the loopback server plays it for workflow and gateway tests (the provider's own wire
formats are tested in `tests/unit/imaging/test_dashscope.py`): tasks that run for a few polls and then succeed with
a URL on the same server, submits answered with a scripted error first, tasks that never finish, and cancels.
Everything it was asked is counted."""

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from imaging.rendering import encode_png, render_text_to_image
from tests.llm.loopback import Fixture, RecordedRequest

RESULT_PATH = "/results/task-1.png"


def dashscope_settings(base_url: str) -> dict[str, Any]:
    """Settings fields that give a worker DashScope's image API at `base_url` (its qwen-image models hosted)."""
    return {"dashscope_api_key": "sk-test-dashscope", "dashscope_base_url": base_url}


@dataclass
class DashScopeDouble:
    """A loopback responder (`Loopback.responder`); `base_url` is the loopback server's."""

    base_url: str
    running_polls: int = 2
    """Polls that see RUNNING before the task succeeds."""
    never_finishes: bool = False
    submit_errors: list[Fixture] = field(default_factory=list)
    """Answers to the first submits, in order (then the task is accepted)."""
    calls: Counter[str] = field(default_factory=Counter)

    def __call__(self, request: RecordedRequest) -> Fixture:
        path = request.path
        if request.method == "POST" and path.endswith("/image-synthesis"):
            self.calls["submit"] += 1
            if self.submit_errors:
                return self.submit_errors.pop(0)
            self.calls["accepted"] += 1
            return Fixture.json({"output": {"task_status": "PENDING", "task_id": "task-1"}, "request_id": "r-1"})
        if request.method == "POST" and path.endswith("/cancel"):
            self.calls["cancel"] += 1
            return Fixture.json({"request_id": "r-3"})
        if request.method == "GET" and path.startswith("/api/v1/tasks/"):
            self.calls["poll"] += 1
            if self.never_finishes or self.calls["poll"] <= self.running_polls:
                return task("RUNNING")
            return task("SUCCEEDED", results=[{"url": f"{self.base_url}{RESULT_PATH}"}])
        if request.method == "GET" and path == RESULT_PATH:
            self.calls["fetch"] += 1
            png = encode_png(render_text_to_image("云端的猫", seed=11, width=256, height=192, style_strength=0.5))
            return Fixture(status=200, headers={"content-type": "image/png"}, body=png)
        raise AssertionError(f"DashScope was not asked this: {request.method} {path}")


def task(status: str, **output: object) -> Fixture:
    return Fixture.json({"request_id": "r-2", "output": {"task_id": "task-1", "task_status": status, **output}})


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Fixture:
    return Fixture.json({"request_id": "r-err", "code": code, "message": message}, status=status, headers=headers)
