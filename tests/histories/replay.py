"""The strict replayer and the committed histories it replays (ARCHITECTURE rule 17).

`strict_replayer()` runs workflow code under the SDK's default, strict sandbox with the project's data converter:
the worker runs workflows unsandboxed (`worker.WORKFLOW_RUNNER`), so replaying here is where a non-deterministic
call (the clock, randomness, I/O) in workflow code is still caught. The committed histories under
`tests/fixtures/histories/` are named `<WorkflowType>[-<case>].json`; `python -m tests.histories.record` (or
`make histories`) writes them again (see docs/durable-changes.md for when, and when never).
"""

import json
from pathlib import Path

from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from workflows.registry import REGISTRY

HISTORY_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "histories"


def strict_replayer(workflows: list[type] | None = None) -> Replayer:
    """A replayer for `workflows` (default: every registered workflow) under the strict sandbox."""
    return Replayer(
        workflows=workflows if workflows is not None else [entry.workflow for entry in REGISTRY],
        data_converter=pydantic_data_converter,
        workflow_runner=SandboxedWorkflowRunner(),
    )


def workflow_type_of(path: Path) -> str:
    """The workflow type a history file holds: its name up to the first `-`."""
    return path.stem.split("-", 1)[0]


def committed_histories(directory: Path = HISTORY_DIR) -> list[Path]:
    return sorted(directory.glob("*.json"))


def load_history(path: Path) -> WorkflowHistory:
    """A committed history, with the workflow id its run had (`tests.histories.record.history_json`)."""
    recorded = json.loads(path.read_text(encoding="utf-8"))
    return WorkflowHistory.from_json(recorded["workflowId"], recorded)
