"""What the worker registers: every activity named `<family>.<node>` and served on its family's task queue, every
workflow on its family's queue, and the grep the layout promises (no image names outside the image folders)."""

import subprocess
from pathlib import Path

from temporalio import activity
from temporalio.testing import WorkflowEnvironment

from models.settings import Settings
from tests.stack_process import REPO
from worker import build_activities, build_workers
from workflows.registry import REGISTRY


def test_every_activity_is_named_after_its_family(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, _env_file=None)
    for family, activities in build_activities(settings).items():
        names = [activity._Definition.must_from_callable(fn).name or "" for fn in activities]
        assert names and all(name.startswith(f"{family}.") for name in names), names


async def test_each_family_has_one_worker_on_its_own_task_queue_and_one_on_its_cpu_queue(
    env: WorkflowEnvironment, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path, task_queue_prefix="acme-", _env_file=None)
    workers = build_workers(env.client, settings, build_activities(settings))
    families = REGISTRY.families()
    expected = [f"acme-{family}" for family in families] + [f"acme-{family}-cpu" for family in families]
    assert sorted(w.task_queue for w in workers) == sorted(expected)


def test_no_image_names_outside_the_image_folders() -> None:
    found = subprocess.run(
        ["grep", "-rn", r"AgentState\b\|AgentEvent\b", "--include=*.py", "workflows", "activities", "api", "models"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    assert [line for line in found if "/image/" not in line.split(":", 1)[0]] == []
