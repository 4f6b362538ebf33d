"""What a family declares, once, to plug into the platform (ARCHITECTURE rule 14): `Family`.

A family is its name, its registered workflows, its error codes, its console page, and two entry points that only
the process that needs them resolves: the activity factory (`activities.<family>.family:build_activities`, resolved
by the worker) and the gateway routes (`api.routes.<family>:GATEWAY`, resolved by the gateway). Naming them by
import path keeps the layers one way: the registry, which the gateway and the workflows read, never imports
activity code. `workflows.registry.FAMILIES` is the one list the worker, the gateway, the registry and the console
iterate; `docs/adding-a-family.md` walks through a new one.
"""

import importlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from workflows.common.registration import RegisteredWorkflow


@dataclass(frozen=True)
class ConsolePage:
    """The family's page in the web console: `api/console/js/pages/<page>.js`, and its label in the navigation."""

    page: str
    label_zh: str
    label_en: str


@dataclass(frozen=True)
class Family:
    """One agent system as the platform knows it; its `name` is its folder under `workflows/`, `activities/` and
    `models/`, its task queue (`TASK_QUEUE_PREFIX` + name) and the prefix of its activity names (`<name>.<node>`)."""

    name: str
    workflows: tuple[RegisteredWorkflow, ...]
    activities: str
    """`module:function` of its activity factory: `(WorkerDependencies) -> list of activity callables`."""
    gateway: str | None = None
    """`module:attribute` of its `api.families.FamilyGateway` (routers and launchers); None: the generic run API is
    all it needs."""
    error_codes: type[StrEnum] | None = None
    """The codes only this family's runs and routes use (the platform's own are `models.errors.ErrorCode`)."""
    console: ConsolePage | None = None
    """None: its runs show on the console's runs page only."""
    description: str = field(default="")

    def __post_init__(self) -> None:
        for entry in self.workflows:
            if entry.family != self.name:
                raise ValueError(f"family {self.name}: {entry.name} is registered for family {entry.family!r}")

    def activity_factory(self) -> Any:
        """The activity factory (imported now: only the worker calls this)."""
        return resolve(self.activities)

    def gateway_routes(self) -> Any:
        """The gateway's routes and launchers (imported now: only the gateway calls this); None without any."""
        return None if self.gateway is None else resolve(self.gateway)


def resolve(reference: str) -> Any:
    """The attribute a `module:attribute` reference names."""
    module, _, attribute = reference.partition(":")
    if not attribute:
        raise ValueError(f"{reference!r} is not a module:attribute reference")
    return getattr(importlib.import_module(module), attribute)
