"""The `simulator` pytest fixture (registered in tests/conftest.py, so any test can use it) and the Settings
fields that point the project's LLM provider, and its image model, at it."""

from collections.abc import Iterator
from typing import Any

import pytest

from tests.llm.answers import anthropic_llm_settings, llm_settings
from tests.simulator.requests import Protocol
from tests.simulator.server import Simulator


def simulator_settings(simulator: Simulator, protocol: Protocol = "openai_chat") -> dict[str, Any]:
    """Settings fields whose provider is the simulator: OpenAI over Chat Completions, or Anthropic."""
    if protocol == "openai_chat":
        return llm_settings(simulator.base_url)
    return anthropic_llm_settings(simulator.base_url)


def simulator_image_settings(simulator: Simulator) -> dict[str, Any]:
    """Settings fields whose default image model is the simulator's (OpenAI Images, `tests/simulator/images.py`),
    beside `simulator_settings`' OpenAI key."""
    return {"image_provider_default": "openai", "openai_image_base_url": f"{simulator.base_url}/v1"}


@pytest.fixture(scope="session")
def simulator_server() -> Iterator[Simulator]:
    server = Simulator()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def simulator(simulator_server: Simulator) -> Iterator[Simulator]:
    """The model simulator, reset to its defaults (instant, no quirks, seed 0, empty log) for each test."""
    simulator_server.reset()
    yield simulator_server
    simulator_server.reset()
