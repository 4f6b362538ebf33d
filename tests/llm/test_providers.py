"""Provider presets and configuration from settings: the protocol each one speaks, where it is called, how it
authenticates, and a clear error naming the variable to set when something is missing."""

from typing import Any

import httpx
import pytest

from llm import LLMClient, LLMRequest, Message
from llm.adapters.openai_chat import OpenAIChatAdapter
from llm.adapters.openai_responses import OpenAIResponsesAdapter
from llm.errors import ConfigurationError
from llm.providers import PRESETS, configure_provider
from models.settings import Settings
from runtime.llm_client import build_llm_client
from tests.llm.answers import text_answer
from tests.llm.loopback import Loopback

NO_HTTP = httpx.AsyncClient()
"""Never used to send: these tests only build clients."""


def settings(**fields: Any) -> Settings:
    return Settings(_env_file=None, **fields)


@pytest.mark.parametrize(
    ("name", "variable"),
    [
        ("openai", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("gemini", "GEMINI_API_KEY"),
        ("deepseek", "DEEPSEEK_API_KEY"),
        ("qwen", "DASHSCOPE_API_KEY"),
        ("openai-compatible", "LLM_API_KEY"),
    ],
)
def test_a_missing_key_names_the_variable_to_set(name: str, variable: str) -> None:
    with pytest.raises(ConfigurationError, match=variable) as raised:
        configure_provider(name)
    assert f"LLM_PROVIDER={name}" in str(raised.value)


def test_openai_compatible_needs_a_base_url_and_a_model() -> None:
    with pytest.raises(ConfigurationError, match="LLM_BASE_URL"):
        configure_provider("openai-compatible", api_key="k")
    with pytest.raises(ConfigurationError, match="LLM_MODEL"):
        configure_provider("openai-compatible", api_key="k", base_url="http://vllm:8000/v1")
    provider = configure_provider("openai-compatible", api_key="k", base_url="http://vllm:8000/v1/", model="qwen3")
    assert provider.base_url == "http://vllm:8000/v1" and provider.model == "qwen3"


def test_an_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="deepseek") as raised:
        configure_provider("mistral")
    assert all(name in str(raised.value) for name in PRESETS)


def test_presets_pick_their_protocol_and_openai_can_switch_to_chat_completions() -> None:
    protocols = {
        name: configure_provider(name, api_key="k", model="m").adapter.protocol
        for name in PRESETS
        if name != "openai-compatible"
    }
    assert protocols == {
        "openai": "openai_responses",
        "anthropic": "anthropic",
        "gemini": "gemini",
        "deepseek": "openai_chat",
        "qwen": "openai_chat",
        "ollama": "openai_chat",
    }
    assert isinstance(configure_provider("openai", api_key="k", protocol="chat").adapter, OpenAIChatAdapter)
    assert isinstance(configure_provider("openai", api_key="k").adapter, OpenAIResponsesAdapter)
    assert configure_provider("ollama").api_key is None  # a local Ollama needs no key
    assert configure_provider("qwen", api_key="k").base_url == "https://dashscope.aliyuncs.com/compatible-mode/v1"


@pytest.mark.parametrize(
    ("name", "headers"),
    [
        ("anthropic", {"x-api-key": "k", "anthropic-version": "2023-06-01"}),
        ("gemini", {"x-goog-api-key": "k"}),
        ("deepseek", {"authorization": "Bearer k"}),
    ],
)
def test_each_protocol_authenticates_its_own_way(name: str, headers: dict[str, str]) -> None:
    assert configure_provider(name, api_key="k").auth_headers() == headers


def test_no_provider_configured_means_no_client() -> None:
    assert build_llm_client(settings(), NO_HTTP) is None


def test_settings_read_each_providers_own_key_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_PROVIDER", "qwen")
    monkeypatch.setenv("DASHSCOPE_API_KEY", "sk-dashscope")
    monkeypatch.setenv("LLM_MODEL", "qwen-max")
    client = build_llm_client(settings(), NO_HTTP)
    assert client is not None and client.name == "qwen/qwen-max"
    assert client.provider.auth_headers() == {"authorization": "Bearer sk-dashscope"}

    monkeypatch.setenv("LLM_API_KEY", "sk-override")
    overridden = build_llm_client(settings(), NO_HTTP)
    assert overridden is not None and overridden.provider.api_key == "sk-override"


def test_a_worker_with_a_provider_but_no_key_fails_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_PROVIDER", "deepseek")
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("LLM_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="DEEPSEEK_API_KEY"):
        build_llm_client(settings(), NO_HTTP)


@pytest.mark.parametrize(
    ("name", "path", "tokens_field"),
    [("qwen", "/compatible-mode/v1/chat/completions", "max_tokens"), ("openai", "/v1/responses", "max_output_tokens")],
)
async def test_requests_go_where_each_provider_listens(
    loopback: Loopback, name: str, path: str, tokens_field: str
) -> None:
    base = f"{loopback.base_url}/compatible-mode/v1" if name == "qwen" else f"{loopback.base_url}/v1"
    provider = configure_provider(name, api_key="k", base_url=base)
    loopback.queue(text_answer("openai_chat" if name == "qwen" else "openai_responses", "你好"))
    async with httpx.AsyncClient() as http:
        answer = await LLMClient(provider, http, retry=None).complete(
            LLMRequest(messages=(Message.user("你好"),), max_output_tokens=100)
        )
    assert answer.text == "你好"
    request = loopback.requests[0]
    assert request.path == path and request.json()[tokens_field] == 100
