"""What a family adds to the gateway: `FamilyGateway`, its routers and the launchers of its workflows.

A family's routes module exports one (`api.routes.<family>:GATEWAY`, named by its `Family`); `api.server` mounts
every family's routers and registers their launchers, so adding a family edits no gateway file.
"""

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter

from api.launch import Launcher, Launchers
from models.settings import Settings
from workflows.common.family import Family

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FamilyGateway:
    """A family's routes (behind the API key like every data route) and the launchers of the workflows that start
    their own way (by workflow name); the others start directly through `POST /v1/runs`."""

    routers: tuple[APIRouter, ...] = ()
    launchers: Mapping[str, Launcher] = field(default_factory=dict)
    capability_routers: tuple[APIRouter, ...] = ()
    """Routes whose signed URL is their key (a preview in an iframe, which sends no header): no API key."""
    services: Callable[[Settings], Mapping[str, Any]] | None = None
    """What its routes read from `app.state`, by name: built once at start-up, in a thread (it may open files);
    each one with a `close()` is closed at shutdown (a database pool, a vector store's connection)."""


def family_gateways(families: tuple[Family, ...]) -> list[FamilyGateway]:
    """Each family's gateway part, imported now (the gateway's process only)."""
    gateways = []
    for family in families:
        gateway = family.gateway_routes()
        if gateway is None:
            continue
        if not isinstance(gateway, FamilyGateway):
            raise TypeError(f"family {family.name}: {family.gateway} is not a FamilyGateway")
        gateways.append(gateway)
    return gateways


def all_launchers(gateways: list[FamilyGateway]) -> Launchers:
    """Every family's launchers, by workflow name."""
    return {name: launcher for gateway in gateways for name, launcher in gateway.launchers.items()}


def close_services(services: list[Any]) -> None:
    """Closes each family service that can be closed (`FamilyGateway.services`), every one even when one fails
    (blocking: the gateway runs it in a thread)."""
    for service in services:
        close = getattr(service, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                log.exception("closing %s failed", type(service).__name__)
