"""THE one place for activity options: start-to-close timeouts and retry policies per node (seed 000 §8.2).

Run-level limits (one run ≤ 60 s, a session ends after 30 idle minutes) are settings that reach the workflows
through their input (`Settings.run_deadline_seconds`, `Settings.session_idle_minutes`).

Call sites spread a `NodeOptions` into `workflow.execute_activity(..., **PLANNER.kwargs(), summary=...)`;
no retry policy or timeout is written anywhere else.
"""

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio.common import RetryPolicy

NODE_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=5),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=20),
    maximum_attempts=4,  # the first attempt and 3 retries: 5 s, 10 s, 20 s apart
)
"""Exponential backoff shared by every node: retries after 5 s, 10 s and 20 s, then the node fails."""


@dataclass(frozen=True)
class NodeOptions:
    """Declared options of one activity node."""

    start_to_close: timedelta
    retry: RetryPolicy = field(default_factory=lambda: NODE_RETRY)

    def kwargs(self) -> dict[str, Any]:
        return {"start_to_close_timeout": self.start_to_close, "retry_policy": self.retry}


VALIDATE_INPUT = NodeOptions(start_to_close=timedelta(seconds=5))
PLANNER = NodeOptions(start_to_close=timedelta(seconds=10))
RAG = NodeOptions(start_to_close=timedelta(seconds=5))
EXECUTOR = NodeOptions(start_to_close=timedelta(seconds=5))
CRITIC = NodeOptions(start_to_close=timedelta(seconds=8))
