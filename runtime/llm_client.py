"""Builds the worker's LLM client from settings: the configured provider with Temporal owning retries, or None
when no provider is configured (the agents then use their offline rule-based fallbacks)."""

import httpx

from llm import PRESETS, LLMClient, Provider, configure_provider
from models.settings import Settings


def configured_provider(settings: Settings) -> Provider | None:
    """The provider settings configure, or None when `LLM_PROVIDER` is unset. Raises
    `llm.errors.ConfigurationError` naming the variable to set when the provider lacks a key, URL or model."""
    if not settings.llm_provider:
        return None
    preset = PRESETS.get(settings.llm_provider)
    # each preset's key variable (DEEPSEEK_API_KEY, ...) is a Settings field of the same name
    own_key = getattr(settings, preset.key_variable.lower(), None) if preset and preset.key_variable else None
    key = settings.llm_api_key or own_key
    return configure_provider(
        settings.llm_provider,
        api_key=key.get_secret_value() if key is not None else None,
        base_url=settings.llm_base_url,
        model=settings.llm_model,
        protocol=settings.llm_protocol,
        max_output_tokens=settings.llm_max_output_tokens,
    )


def build_llm_client(settings: Settings, http: httpx.AsyncClient) -> LLMClient | None:
    """Raises `llm.errors.ConfigurationError` naming the variable to set when the provider lacks a key, URL or
    model, so a misconfigured worker fails at start-up rather than on its first run."""
    provider = configured_provider(settings)
    if provider is None:
        return None
    return LLMClient(
        provider,
        http,
        retry=None,
        timeout=settings.llm_timeout_seconds,
        max_output_tokens=provider.max_output_tokens,
    )
