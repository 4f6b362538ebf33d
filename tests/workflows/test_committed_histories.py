"""Every committed history replays under the strict sandbox with today's workflow code (ARCHITECTURE rule 17), and
every registered workflow type has one: a change that would break a run already in flight fails here.

A failure here is never fixed by recording the histories again (docs/durable-changes.md): ship the change behind
`workflow.patched`, or as a new Worker Deployment Version.
"""

from pathlib import Path

import pytest

from tests.histories.replay import committed_histories, load_history, strict_replayer, workflow_type_of
from tests.workflows.common.tiny import TINY_WORKFLOWS
from workflows.registry import REGISTRY

WORKFLOWS = [entry.workflow for entry in REGISTRY] + [entry.workflow for entry in TINY_WORKFLOWS]
"""The registered workflows, and the tests' tiny family (its history is the one `test_command_order.py` changes
the code against)."""


@pytest.mark.parametrize("path", committed_histories(), ids=lambda path: path.stem)
async def test_a_committed_history_replays(path: Path) -> None:
    result = await strict_replayer(WORKFLOWS).replay_workflow(load_history(path), raise_on_replay_failure=False)

    assert result.replay_failure is None, f"{path.name}: {result.replay_failure!r}"


def test_every_registered_workflow_type_has_a_committed_history() -> None:
    recorded = {workflow_type_of(path) for path in committed_histories()}

    missing = sorted(entry.name for entry in REGISTRY if entry.name not in recorded)

    assert not missing, f"no committed history for {missing}: add a case to tests/histories/record.py"


def test_every_committed_history_is_of_a_known_workflow_type() -> None:
    known = {workflow.__name__ for workflow in WORKFLOWS}

    unknown = sorted(path.name for path in committed_histories() if workflow_type_of(path) not in known)

    assert not unknown, f"histories of no registered workflow type: {unknown}"
