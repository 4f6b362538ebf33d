"""Every family plugs in through its `Family` alone: each activity a workflow may call (an `ActivitySpec` declared
under `models/`) is served by the worker, each served activity is declared, and each family's entry points (its
activity factory, its gateway part, its console page) resolve."""

import importlib
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import models
from api.families import FamilyGateway
from models.errors import ErrorCode, FamilyErrorCode, is_error_code
from models.nodes import ActivitySpec
from models.settings import Settings
from tests.stack_process import REPO
from worker import build_activities
from workflows.registry import FAMILIES, REGISTRY


def specs_in(value: Any) -> Iterator[ActivitySpec[Any, Any]]:
    """The specs a module-level value holds: itself, or those in a dict, list or tuple of them."""
    if isinstance(value, ActivitySpec):
        yield value
    elif isinstance(value, dict | list | tuple):
        items = value.values() if isinstance(value, dict) else value
        yield from (item for item in items if isinstance(item, ActivitySpec))


def declared_activities() -> set[str]:
    """Every activity name an `ActivitySpec` under `models/` declares."""
    names = set()
    for module_info in pkgutil.walk_packages(models.__path__, "models."):
        module = importlib.import_module(module_info.name)
        names |= {spec.name for value in vars(module).values() for spec in specs_in(value)}
    return names


def served_activities(tmp_path: Path) -> dict[str, set[str]]:
    """Every activity the worker serves, by family."""
    from temporalio import activity

    activities = build_activities(Settings(data_dir=tmp_path, _env_file=None))
    return {
        family: {activity._Definition.must_from_callable(fn).name or "" for fn in functions}
        for family, functions in activities.items()
    }


def test_every_declared_activity_is_served_and_every_served_one_declared(tmp_path: Path) -> None:
    served = served_activities(tmp_path)
    all_served = set().union(*served.values())

    declared = declared_activities()

    assert sorted(declared - all_served) == [], "declared but no worker serves them: a run would wait for ever"
    assert sorted(all_served - declared) == [], "served but no workflow can call them through a spec"
    for family, names in served.items():
        assert all(name.startswith(f"{family}.") for name in names), (family, names)


def test_each_family_declares_its_workflows_routes_and_page() -> None:
    names = [family.name for family in FAMILIES]
    assert len(set(names)) == len(names), "two families share a name"
    assert sorted(REGISTRY.families()) == sorted(names)
    for family in FAMILIES:
        assert callable(family.activity_factory()), family.name
        gateway = family.gateway_routes()
        assert gateway is None or isinstance(gateway, FamilyGateway), family.name
        for workflow_name in gateway.launchers if gateway else ():
            entry = REGISTRY.get(workflow_name)
            assert entry is not None and entry.family == family.name, (family.name, workflow_name)
        if family.console is not None:
            assert (REPO / "api" / "console" / "js" / "pages" / f"{family.console.page}.js").is_file(), family.name


def test_the_worker_and_the_gateway_name_no_family() -> None:
    """Adding a family edits `workflows/registry.py` only: the worker and the gateway iterate the families, and
    no family's name (nor an old one: `supervisor`, `apps`) appears in them."""
    names = [family.name for family in FAMILIES] + ["supervisor", "apps"]
    pattern = re.compile("|".join(names))
    for path in ("worker.py", "api/server.py"):
        found = [line for line in (REPO / path).read_text().splitlines() if pattern.search(line)]
        assert found == [], (path, found)


def test_each_family_declares_its_own_codes_once_and_they_are_known_as_codes() -> None:
    """A family's codes live in its own enum; no code is declared twice, and a failure carrying one keeps it."""
    declared = list(ErrorCode.__members__)
    for family in FAMILIES:
        assert family.error_codes is not None and issubclass(family.error_codes, FamilyErrorCode), family.name
        declared += list(family.error_codes.__members__)
        assert all(is_error_code(code) for code in family.error_codes.__members__), family.name
    assert len(declared) == len(set(declared)), "a code declared by two enums"
    assert not is_error_code("RateLimitError") and not is_error_code(None)
