"""The model the family tests run on: the simulator at its `fast` profile (every run, CI included; the
environment's `SIMULATOR_PROFILE` and `SIMULATOR_TIME_SCALE` choose another, e.g. `realistic`), or, in live mode
(`make test-live`), the provider the environment configures; and the gateway with every family's worker using
it."""

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import WorkflowEnvironment

from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, api_style_store, running_gateway
from tests.live.mode import live_provider, live_requested
from tests.simulator.answers import ON_TASK
from tests.simulator.fixtures import simulator_settings
from tests.simulator.profiles import FAST, PROFILES
from tests.simulator.server import Simulator

__all__ = ["api_style_store"]

LIVE_TIMEOUT_SECONDS = 1800
"""A real model writes an app's documents, plan and files in minutes, not the 5 the suite allows a test."""


@dataclass(frozen=True)
class Model:
    """Where the runs' model calls go: the simulator (whose log says what it answered), or a live provider."""

    name: str
    settings_fields: dict[str, Any]
    simulator: Simulator | None


@pytest.fixture(
    params=["simulator", pytest.param("live", marks=[pytest.mark.live, pytest.mark.timeout(LIVE_TIMEOUT_SECONDS)])]
)
def model(request: pytest.FixtureRequest, simulator: Simulator) -> Model:
    if request.param == "simulator":
        simulator.profile = PROFILES[os.environ.get("SIMULATOR_PROFILE", FAST.name)]
        simulator.time_scale = float(os.environ.get("SIMULATOR_TIME_SCALE", "1"))
        simulator.style = ON_TASK
        return Model("simulator", simulator_settings(simulator), simulator)
    if not live_requested(request.config):
        pytest.skip("live mode only: make test-live, with LLM_PROVIDER and its key set")
    live = live_provider()
    if isinstance(live, str):
        pytest.skip(f"live mode without a provider: {live}")
    return Model(f"{live.provider.name} {live.provider.model}", live.settings_fields, None)


@pytest.fixture
async def gateway(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, model: Model
) -> AsyncIterator[Gateway]:
    async with running_gateway(env, tmp_path, api_style_store, **model.settings_fields) as running:
        yield running
