"""This project's LLM client pointed at the loopback server, one provider per wire protocol, and what it makes
of a fixture: its normalized stream events, or an outcome in the terms of `tests.llm.outcome`."""

import httpx

from llm import LLMClient, LLMRequest, LLMResponse, Message, RetryEngine, ToolDefinition, configure_provider
from llm.adapters.gemini import GENERATED_ID_PREFIX
from llm.providers import Provider
from llm.types import StreamEvent
from tests.llm.loopback import Loopback
from tests.llm.outcome import Outcome, ToolCallOutcome

PROTOCOLS = ("anthropic", "openai_chat", "openai_responses", "gemini")

TOOLS = (
    ToolDefinition(
        name="get_weather",
        description="Current weather for a city.",
        input_schema={
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"],
        },
    ),
    ToolDefinition(name="get_time", description="The current local time."),
)


def provider_for(protocol: str, base_url: str) -> Provider:
    if protocol == "anthropic":
        return configure_provider("anthropic", api_key="test-key", base_url=base_url)
    if protocol == "gemini":
        return configure_provider("gemini", api_key="test-key", base_url=f"{base_url}/v1beta")
    return configure_provider(
        "openai",
        api_key="test-key",
        base_url=f"{base_url}/v1",
        protocol="chat" if protocol == "openai_chat" else "responses",
    )


def client_for(protocol: str, loopback: Loopback, http: httpx.AsyncClient, *, retry: RetryEngine | None) -> LLMClient:
    return LLMClient(provider_for(protocol, loopback.base_url), http, retry=retry)


def request_for(stem: str) -> LLMRequest:
    question = "杭州现在的天气和时间？" if stem.startswith("tools") else "介绍一下杭州西湖。"
    return LLMRequest(messages=(Message.user(question),), tools=TOOLS if stem.startswith("tools") else ())


async def stream_events(loopback: Loopback, protocol: str, stem: str) -> list[StreamEvent]:
    """Every event the client streams for the fixture, `done` last."""
    loopback.queue(f"{protocol}/{stem}")
    async with httpx.AsyncClient() as http:
        return [e async for e in client_for(protocol, loopback, http, retry=None).stream(request_for(stem))]


async def our_outcome(loopback: Loopback, protocol: str, stem: str) -> Outcome:
    loopback.queue(f"{protocol}/{stem}")
    async with httpx.AsyncClient() as http:
        client = client_for(protocol, loopback, http, retry=None)
        if "stream" in stem:  # the `*_stream` fixtures, and `error_midstream`
            async with client.stream(request_for(stem)) as stream:
                return outcome_of(await stream.response())
        return outcome_of(await client.complete(request_for(stem)))


def outcome_of(response: LLMResponse) -> Outcome:
    return Outcome(
        text=response.text,
        tool_calls=tuple(
            ToolCallOutcome(None if c.id.startswith(GENERATED_ID_PREFIX) else c.id, c.name, c.arguments)
            for c in response.tool_calls
        ),
        input_tokens=response.usage.input_tokens,
        output_tokens=response.usage.output_tokens,
        total_tokens=response.usage.total_tokens,
    )
