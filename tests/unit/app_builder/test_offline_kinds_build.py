"""Issue 27 item 1: each of the four kinds the offline builder builds (todo list, shopping list, notes, counter)
installs, type-checks (`tsc --noEmit`) and builds (`vite build`) with the real toolchain, no finding; the offline
agents' project composed as the plan's waves compose it (`compose` of the offline project tests)."""

import shutil
from pathlib import Path

import pytest

from activities.app_builder.checks.toolchain import run_toolchain
from tests.unit.app_builder.test_offline_project import MESSAGES, compose


@pytest.mark.toolchain
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
@pytest.mark.parametrize("kind", sorted(MESSAGES))
async def test_issue_27_each_offline_kind_type_checks_and_builds(
    kind: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    files = compose(MESSAGES[kind]).files
    cache = tmp_path_factory.getbasetemp() / "offline-kinds-npm-cache"
    heartbeats: list[str] = []

    result = await run_toolchain(
        files, work_root=Path(tmp_path_factory.mktemp(kind)), cache_root=cache, mode="on", heartbeat=heartbeats.append
    )

    assert result.findings == [], [finding.message for finding in result.findings]
    assert {"typecheck", "build"} <= set(result.checks_run), result.notes
