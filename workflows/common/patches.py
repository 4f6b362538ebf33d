"""Which changes a run takes (`patched`), decided in the run's first activation, before any local activity.

`workflow.patched(id)` replays True only when its marker is among the events of the workflow task being replayed.
A local activity breaks that: the task that records its marker may complete before the workflow has seen its
result (seen after a Temporal server restart, ../shared/evidence/image-turn-after-temporal-restart.history.json),
so the code after it, and a patch marker it records, lands in the next task. A replay resolves the local activity
one task earlier, the patch call finds no marker in that task and answers False, and the replay fails with TMPRL1100
("Non-deprecated patch marker encountered ... no corresponding change command"). Commands other than patch markers
replay across that boundary; only the patch decision depends on it.

So every workflow run calls `decide_at_start()` first, in its first activation, where no local activity has run:
a new run records the one marker `DECIDED_AT_START` there and takes every change after it without another marker.
A run recorded before it has no such marker, and each `patched(id)` then asks `workflow.patched(id)` as it did when
it was recorded. Workflow code calls `patched` here, never `workflow.patched` (tests/unit/test_patches.py).
"""

from temporalio import workflow

DECIDED_AT_START = "changes-decided-at-start"
"""`workflow.patched` id: the run took, in its first activation, every change that code behind `patched` makes."""


def decide_at_start() -> None:
    """The first thing a workflow's run does: decide (and record, in a new run) that it takes every change."""
    workflow.patched(DECIDED_AT_START)


def patched(patch_id: str) -> bool:
    """Whether this run takes the change `patch_id`: True in a run that started on code with `decide_at_start`,
    else what `workflow.patched(patch_id)` answered (and records) where the run met it."""
    return workflow.patched(DECIDED_AT_START) or workflow.patched(patch_id)
