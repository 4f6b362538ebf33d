"""Providers: who to call and how to authenticate (key, base URL, default model), and which wire protocol they
speak. Adapters own the wire format; a provider only picks one and fills in its own details.

| provider            | protocol         | key variable      | default base URL                                  |
|---------------------|------------------|-------------------|---------------------------------------------------|
| `openai`            | Responses (*)    | OPENAI_API_KEY    | https://api.openai.com/v1                         |
| `anthropic`         | Messages         | ANTHROPIC_API_KEY | https://api.anthropic.com                         |
| `gemini`            | generateContent  | GEMINI_API_KEY    | https://generativelanguage.googleapis.com/v1beta  |
| `deepseek`          | Chat Completions | DEEPSEEK_API_KEY  | https://api.deepseek.com                          |
| `qwen`              | Chat Completions | DASHSCOPE_API_KEY | https://dashscope.aliyuncs.com/compatible-mode/v1 |
| `ollama`            | Chat Completions | (none)            | http://localhost:11434/v1                         |
| `openai-compatible` | Chat Completions | LLM_API_KEY       | LLM_BASE_URL (required)                           |

(*) `LLM_PROTOCOL=chat` switches OpenAI to Chat Completions.
`LLM_API_KEY`, `LLM_BASE_URL` and `LLM_MODEL` override any provider's key, base URL and model.
"""

from dataclasses import dataclass, field
from typing import Literal

from llm.adapters.anthropic import AnthropicAdapter
from llm.adapters.base import JsonMode, WireAdapter
from llm.adapters.gemini import GeminiAdapter
from llm.adapters.openai_chat import MaxTokensField, OpenAIChatAdapter
from llm.adapters.openai_responses import OpenAIResponsesAdapter
from llm.errors import ConfigurationError

Protocol = Literal["anthropic", "openai_responses", "openai_chat", "gemini"]


@dataclass(frozen=True)
class ProviderPreset:
    """What one named provider speaks and where: protocol, key variable, default base URL and model, JSON mode."""

    name: str
    protocol: Protocol
    key_variable: str | None
    """The environment variable holding the key; None where no key is needed (a local Ollama)."""
    base_url: str | None
    model: str | None
    json_mode: JsonMode = "json_schema"
    max_tokens_field: MaxTokensField = "max_completion_tokens"
    max_output_tokens: int = 16384
    """The most output tokens its default model accepts (a larger `max_tokens` is refused by some)."""


PRESETS: dict[str, ProviderPreset] = {
    p.name: p
    for p in (
        ProviderPreset("openai", "openai_responses", "OPENAI_API_KEY", "https://api.openai.com/v1", "gpt-4.1-mini"),
        ProviderPreset(
            "anthropic", "anthropic", "ANTHROPIC_API_KEY", "https://api.anthropic.com", "claude-sonnet-4-5", "none"
        ),
        ProviderPreset(
            "gemini", "gemini", "GEMINI_API_KEY", "https://generativelanguage.googleapis.com/v1beta", "gemini-2.5-flash"
        ),
        ProviderPreset(
            "deepseek",
            "openai_chat",
            "DEEPSEEK_API_KEY",
            "https://api.deepseek.com",
            "deepseek-chat",
            "json_object",
            "max_tokens",
            8192,
        ),
        ProviderPreset(
            "qwen",
            "openai_chat",
            "DASHSCOPE_API_KEY",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            "qwen-plus",
            "json_object",
            "max_tokens",
            8192,
        ),
        ProviderPreset(
            "ollama", "openai_chat", None, "http://localhost:11434/v1", "qwen2.5:7b", "json_schema", "max_tokens"
        ),
        ProviderPreset(
            "openai-compatible", "openai_chat", "LLM_API_KEY", None, None, "json_object", "max_tokens", 8192
        ),
    )
}


@dataclass(frozen=True)
class Provider:
    """A configured provider: everything the client needs to call it."""

    name: str
    adapter: WireAdapter
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    max_output_tokens: int = 16384
    """The most output tokens the model accepts in one answer: the preset's, or `LLM_MAX_OUTPUT_TOKENS`."""

    def auth_headers(self) -> dict[str, str]:
        if self.api_key is None:
            return {}
        if self.adapter.protocol == "anthropic":
            return {"x-api-key": self.api_key, "anthropic-version": "2023-06-01"}
        if self.adapter.protocol == "gemini":
            return {"x-goog-api-key": self.api_key}
        return {"authorization": f"Bearer {self.api_key}"}


def configure_provider(
    name: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    protocol: Literal["responses", "chat"] | None = None,
    max_output_tokens: int | None = None,
) -> Provider:
    """A provider from its preset plus what settings give; a missing value is a `ConfigurationError` that names
    the environment variable to set."""
    preset = PRESETS.get(name)
    if preset is None:
        raise ConfigurationError(f"unknown LLM_PROVIDER {name!r}; choose one of {', '.join(PRESETS)}", provider=name)
    if preset.key_variable is not None and not api_key:
        hint = (
            preset.key_variable if preset.key_variable == "LLM_API_KEY" else f"{preset.key_variable} (or LLM_API_KEY)"
        )
        raise ConfigurationError(f"LLM_PROVIDER={name} needs an API key: set {hint}", provider=name)
    resolved_url = base_url or preset.base_url
    if resolved_url is None:
        raise ConfigurationError(f"LLM_PROVIDER={name} needs a base URL: set LLM_BASE_URL", provider=name)
    resolved_model = model or preset.model
    if resolved_model is None:
        raise ConfigurationError(f"LLM_PROVIDER={name} needs a model: set LLM_MODEL", provider=name)
    return Provider(
        name=name,
        adapter=_adapter(preset, protocol),
        base_url=resolved_url.rstrip("/"),
        model=resolved_model,
        api_key=api_key or None,
        max_output_tokens=max_output_tokens or preset.max_output_tokens,
    )


def _adapter(preset: ProviderPreset, protocol: Literal["responses", "chat"] | None) -> WireAdapter:
    chosen = preset.protocol
    if protocol is not None and preset.protocol in ("openai_responses", "openai_chat"):
        chosen = "openai_responses" if protocol == "responses" else "openai_chat"
    if chosen == "anthropic":
        return AnthropicAdapter(preset.name, json_mode=preset.json_mode)
    if chosen == "gemini":
        return GeminiAdapter(preset.name, json_mode=preset.json_mode)
    if chosen == "openai_responses":
        return OpenAIResponsesAdapter(preset.name, json_mode=preset.json_mode)
    return OpenAIChatAdapter(preset.name, json_mode=preset.json_mode, max_tokens_field=preset.max_tokens_field)
