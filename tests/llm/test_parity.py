"""Peer parity: the official SDKs (`anthropic`, `openai`, `google-genai`) and this project's client read the same
wire bytes from the loopback server and must end with the same text, tool calls and usage, which must also be
what the bytes mean by the provider's documentation (`expected.json`, written by hand).

Where an SDK and this client part ways (on errors), the tests below the parity table say which is right and why.
"""

import asyncio
import json
from collections.abc import Callable

import anthropic
import openai
import pytest
from google.genai import errors as genai_errors

from llm.errors import (
    BadRequestError,
    LLMError,
    OverloadedError,
    QuotaExhaustedError,
    RateLimitError,
    ServerError,
)
from tests.llm import sdk_anthropic, sdk_gemini, sdk_openai_chat, sdk_openai_responses
from tests.llm.loopback import FIXTURES, Loopback
from tests.llm.our_client import PROTOCOLS, our_outcome
from tests.llm.outcome import Outcome, expected_outcome

OFFICIAL: dict[str, Callable[[Loopback, str], Outcome]] = {
    "anthropic": sdk_anthropic.official_outcome,
    "openai_chat": sdk_openai_chat.official_outcome,
    "openai_responses": sdk_openai_responses.official_outcome,
    "gemini": sdk_gemini.official_outcome,
}
CASES = [
    (protocol, stem)
    for protocol in PROTOCOLS
    for stem in json.loads((FIXTURES / protocol / "expected.json").read_text(encoding="utf-8"))
]


@pytest.mark.parametrize(("protocol", "stem"), CASES, ids=[f"{p}-{s}" for p, s in CASES])
async def test_our_client_and_the_official_sdk_agree_with_the_documented_meaning(
    loopback: Loopback, protocol: str, stem: str
) -> None:
    ours = await our_outcome(loopback, protocol, stem)
    official = await asyncio.to_thread(OFFICIAL[protocol], loopback, stem)

    assert ours == official
    assert ours == expected_outcome(protocol, stem)


def test_every_protocol_has_text_tools_and_their_streams() -> None:
    for protocol in PROTOCOLS:
        assert {"text", "text_stream", "tools", "tools_stream"} <= {s for p, s in CASES if p == protocol}


async def test_anthropic_overloaded_event_mid_stream(loopback: Loopback) -> None:
    """The SDK picks its exception from the HTTP status, so an `overloaded_error` event inside a 200 stream
    becomes a bare `APIStatusError` with status 200. We raise `OverloadedError` (retryable): the event's type is
    what the Errors page maps to 529, and 200 only says the stream had started. Ours is right."""
    with pytest.raises(anthropic.APIStatusError) as official:
        await asyncio.to_thread(sdk_anthropic.official_outcome, loopback, "error_midstream")
    assert official.value.status_code == 200
    assert not isinstance(official.value, anthropic.InternalServerError)

    with pytest.raises(OverloadedError) as ours:
        await our_outcome(loopback, "anthropic", "error_midstream")
    assert ours.value.retryable


@pytest.mark.parametrize("stem", ["error_midstream", "failed_stream"])
async def test_openai_responses_stream_failures(loopback: Loopback, stem: str) -> None:
    """openai-python passes `error` and `response.failed` events through and then fails with a bare
    RuntimeError ("Didn't receive a response.completed event", openai-python #2487). We raise `ServerError`
    carrying the provider's code and message: the event says what failed, and a caller (or Temporal) needs
    to know it may retry. Ours is right."""
    with pytest.raises(RuntimeError, match=r"response\.completed") as official:
        await asyncio.to_thread(sdk_openai_responses.official_outcome, loopback, stem)
    assert not isinstance(official.value, openai.APIError)

    with pytest.raises(ServerError) as ours:
        await our_outcome(loopback, "openai_responses", stem)
    assert ours.value.retryable and ours.value.body


CHAT_ERROR_EVENTS = [
    ("error_midstream", None, ServerError),
    ("invalid_request_midstream", "invalid_request_error", BadRequestError),
    ("tools_failed_midstream", "tool_use_failed", BadRequestError),
    ("token_limit_midstream", "400", BadRequestError),
    ("rate_limited_midstream", "429", RateLimitError),
]


@pytest.mark.parametrize(("stem", "code", "error"), CHAT_ERROR_EVENTS, ids=[s for s, *_ in CHAT_ERROR_EVENTS])
async def test_openai_chat_error_events_mid_stream(
    loopback: Loopback, stem: str, code: str | None, error: type[LLMError]
) -> None:
    """openai-python raises one bare `APIError` (no status, not an `APIStatusError`) for every error object in a
    Chat Completions stream, with the object's `code` turned into a string: a refused request (DeepSeek's
    invalid_request_error, Groq's tool_use_failed with status_code 400, vLLM's context-length error with code
    400), a rate limit (LiteLLM's code "429") and a server error all look alike, and the SDK never retries any of
    them. Both read the same fields; we also act on them: the status the object names (`status_code`, an HTTP
    status in `code`), else what its `type` and `code` mean, decides the class, so a refused request is not
    retried (it would fail the same way) while a rate limit or a server error is. Ours is right."""
    with pytest.raises(openai.APIError) as official:
        await asyncio.to_thread(sdk_openai_chat.official_outcome, loopback, stem)
    assert type(official.value) is openai.APIError and official.value.code == code

    with pytest.raises(error) as ours:
        await our_outcome(loopback, "openai_chat", stem)
    assert type(ours.value) is error and ours.value.retryable is error.retryable_by_default
    assert ours.value.message.endswith(official.value.message)


async def test_gemini_per_day_quota_versus_per_minute_rate_limit(loopback: Loopback) -> None:
    """google-genai raises the same `ClientError` 429 for both; only the `QuotaFailure` detail tells a spent
    per-day quota (retrying today is pointless) from a per-minute limit (retry after `RetryInfo.retryDelay`).
    We tell them apart; the SDK leaves it to the caller. Ours is more useful, and both read the same bytes."""
    for stem in ("rate_limited", "quota_exhausted"):
        with pytest.raises(genai_errors.ClientError) as official:
            await asyncio.to_thread(sdk_gemini.official_outcome, loopback, stem)
        assert official.value.code == 429

    with pytest.raises(RateLimitError) as limited:
        await our_outcome(loopback, "gemini", "rate_limited")
    assert limited.value.retryable and limited.value.retry_after == 7.0
    with pytest.raises(QuotaExhaustedError) as spent:
        await our_outcome(loopback, "gemini", "quota_exhausted")
    assert not spent.value.retryable
