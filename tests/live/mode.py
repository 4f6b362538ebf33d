"""Live mode (`make test-live`, pytest's `--live`): the tests marked `live` call the LLM provider that the
environment (or `.env`) configures, as `make run` would, and the network guard (tests/conftest.py) lets through
that provider's host and no other. Without `--live` the marked tests skip and nothing leaves the machine."""

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

from llm import PRESETS, Provider
from llm.errors import ConfigurationError
from models.settings import Settings
from runtime.llm_client import configured_provider

LIVE_OPTION = "--live"
LLM_FIELDS = {
    "llm_provider",
    "llm_base_url",
    "llm_model",
    "llm_protocol",
    "llm_timeout_seconds",
    "llm_max_output_tokens",
} | {preset.key_variable.lower() for preset in PRESETS.values() if preset.key_variable}
"""The settings that choose and reach the provider; a live test takes these from the environment, nothing else."""


@dataclass(frozen=True)
class LiveProvider:
    """The provider a live run calls, and the settings fields that configure it."""

    provider: Provider
    settings_fields: dict[str, Any]

    @property
    def host(self) -> str | None:
        return urlsplit(self.provider.base_url).hostname


def live_requested(config: pytest.Config) -> bool:
    return bool(config.getoption(LIVE_OPTION))


def live_provider() -> LiveProvider | str:
    """The provider `LLM_PROVIDER` and its key configure, or why there is none (what a live test skips with)."""
    settings = Settings()
    try:
        provider = configured_provider(settings)
    except ConfigurationError as err:
        return str(err)
    if provider is None:
        return "LLM_PROVIDER is not set"
    fields = {name: getattr(settings, name) for name in LLM_FIELDS & settings.model_fields_set}
    return LiveProvider(provider, fields)
