"""Live mode's plumbing, offline: the provider comes from `LLM_PROVIDER` and its key as `make run` reads them (or a
reason to skip), and the network guard lets through the addresses of that provider's host and nothing else."""

import socket
from pathlib import Path
from typing import Any

import pytest

from tests.live.mode import LLM_FIELDS, LiveProvider, live_provider
from tests.network_guard import NetworkGuard

PROVIDER_ADDRESS = "203.0.113.7"


def resolver(host: str | None, port: Any, *args: Any, **kwargs: Any) -> list[tuple[Any, ...]]:
    """The system resolver's answer for any name: one documentation address."""
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (PROVIDER_ADDRESS, port))]


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """An environment with no LLM settings and no `.env` (the test's own directory)."""
    monkeypatch.chdir(tmp_path)
    for name in LLM_FIELDS:
        monkeypatch.delenv(name.upper(), raising=False)
    return monkeypatch


def test_the_live_provider_is_the_one_llm_provider_and_its_key_configure(environment: pytest.MonkeyPatch) -> None:
    environment.setenv("LLM_PROVIDER", "deepseek")
    environment.setenv("DEEPSEEK_API_KEY", "sk-live")

    live = live_provider()

    assert isinstance(live, LiveProvider)
    assert live.host == "api.deepseek.com" and live.provider.model == "deepseek-chat"
    assert set(live.settings_fields) == {"llm_provider", "deepseek_api_key"}


def test_without_a_provider_or_its_key_live_mode_says_what_is_missing(environment: pytest.MonkeyPatch) -> None:
    assert live_provider() == "LLM_PROVIDER is not set"
    environment.setenv("LLM_PROVIDER", "deepseek")

    reason = live_provider()

    assert isinstance(reason, str) and "DEEPSEEK_API_KEY" in reason


def test_the_guard_lets_through_only_the_addresses_the_provider_s_host_resolved_to() -> None:
    guard = NetworkGuard("api.provider.test", resolve=resolver)
    assert not guard.allows((PROVIDER_ADDRESS, 443)), "nothing before the host is resolved"

    guard.getaddrinfo("elsewhere.test", 443)
    assert not guard.allows((PROVIDER_ADDRESS, 443)), "another host's addresses stay refused"
    guard.getaddrinfo("api.provider.test", 443)

    assert guard.allows((PROVIDER_ADDRESS, 443)) and guard.allows(("127.0.0.1", 7233))
    assert not guard.allows(("203.0.113.8", 443))
    offline = NetworkGuard(None, resolve=resolver)
    offline.getaddrinfo("api.provider.test", 443)
    assert not offline.allows((PROVIDER_ADDRESS, 443)), "outside live mode no host is let through"


def test_a_test_that_connects_off_the_machine_fails_loudly() -> None:
    with socket.socket() as sock, pytest.raises(RuntimeError, match="test tried to reach the network"):
        sock.connect((PROVIDER_ADDRESS, 443))
