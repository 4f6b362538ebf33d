"""Failures become typed errors (llm.errors) carrying provider, status, body, retryable and retry_after: HTTP
error answers per protocol, error events inside a 200 stream, transport failures and truncated streams."""

import asyncio
import dataclasses
import json
import re

import httpx
import pytest

from llm import LLMClient, LLMRequest, Message, TextDelta
from llm.errors import (
    BadRequestError,
    IncompleteStreamError,
    LLMError,
    MalformedResponseError,
    OverloadedError,
    ProviderConnectionError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitError,
    ServerError,
)
from llm.sse import SseEvent
from llm.types import StreamEvent
from tests.llm.loopback import Fixture, Loopback
from tests.llm.our_client import client_for, provider_for

QUESTION = LLMRequest(messages=(Message.user("介绍一下杭州西湖。"),))

HTTP_ERRORS = [
    ("anthropic", "rate_limited", RateLimitError, 429, True, 7.0),
    ("anthropic", "billing", QuotaExhaustedError, 402, False, None),
    ("anthropic", "overloaded", OverloadedError, 529, True, None),
    ("anthropic", "server_error", ServerError, 500, True, None),
    ("openai_chat", "rate_limited", RateLimitError, 429, True, 7.0),
    ("openai_chat", "quota_exhausted", QuotaExhaustedError, 429, False, None),
    ("openai_chat", "server_error", ServerError, 500, True, None),
    ("openai_chat", "overloaded", OverloadedError, 503, True, None),
    ("openai_responses", "rate_limited", RateLimitError, 429, True, 7.0),  # retry-after-ms
    ("openai_responses", "quota_exhausted", QuotaExhaustedError, 429, False, None),
    ("gemini", "rate_limited", RateLimitError, 429, True, 7.0),  # RetryInfo.retryDelay
    ("gemini", "quota_exhausted", QuotaExhaustedError, 429, False, 38.0),
    ("gemini", "server_error", ServerError, 500, True, None),
    ("gemini", "overloaded", OverloadedError, 503, True, None),
]


@pytest.mark.parametrize("streaming", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize(
    ("protocol", "stem", "error", "status", "retryable", "retry_after"),
    HTTP_ERRORS,
    ids=[f"{p}-{s}" for p, s, *_ in HTTP_ERRORS],
)
async def test_http_error_answers_become_typed_errors(
    loopback: Loopback,
    http: httpx.AsyncClient,
    protocol: str,
    stem: str,
    error: type[LLMError],
    status: int,
    retryable: bool,
    retry_after: float | None,
    streaming: bool,
) -> None:
    loopback.queue(f"{protocol}/{stem}")
    client = client_for(protocol, loopback, http, retry=None)
    with pytest.raises(error) as raised:
        if streaming:
            await client.stream(QUESTION).response()
        else:
            await client.complete(QUESTION)

    assert type(raised.value) is error
    assert raised.value.status == status and raised.value.retryable is retryable
    assert raised.value.retry_after == retry_after or (retry_after is None and not retryable)
    assert raised.value.provider == client.provider.name
    assert isinstance(raised.value.body, dict) and raised.value.body  # the provider's own error document
    assert str(status) in str(raised.value)


MID_STREAM = [
    ("anthropic", "error_midstream", OverloadedError, True),
    ("openai_chat", "error_midstream", ServerError, True),  # OpenAI: type server_error
    ("openai_chat", "invalid_request_midstream", BadRequestError, False),  # DeepSeek: type invalid_request_error
    ("openai_chat", "tools_failed_midstream", BadRequestError, False),  # Groq: tool_use_failed, status_code 400
    ("openai_chat", "token_limit_midstream", BadRequestError, False),  # vLLM: code 400 (a number), then [DONE]
    ("openai_chat", "rate_limited_midstream", RateLimitError, True),  # LiteLLM: code "429" (a string)
    ("openai_responses", "error_midstream", ServerError, True),
    ("openai_responses", "failed_stream", ServerError, True),
    ("gemini", "error_midstream", OverloadedError, True),
]


@pytest.mark.parametrize(
    ("protocol", "stem", "error", "retryable"), MID_STREAM, ids=[f"{p}-{s}" for p, s, *_ in MID_STREAM]
)
async def test_an_error_inside_a_200_stream_is_raised_as_what_it_says_never_an_empty_success(
    loopback: Loopback, http: httpx.AsyncClient, protocol: str, stem: str, error: type[LLMError], retryable: bool
) -> None:
    loopback.queue(f"{protocol}/{stem}")
    seen: list[StreamEvent] = []
    with pytest.raises(error) as raised:
        async for event in client_for(protocol, loopback, http, retry=None).stream(QUESTION):
            seen.append(event)

    assert all(e.type == "text_delta" for e in seen)  # no `done`
    assert type(raised.value) is error
    assert raised.value.retryable is retryable and raised.value.status is None
    assert "mid-stream" in str(raised.value)
    if stem == "error_midstream" and protocol != "openai_responses":
        assert seen, "the fixture streams some text before its error event"


def test_a_chat_error_event_code_that_is_no_http_status_is_not_read_as_one() -> None:
    """Some compatible servers put their own numeric error codes in `code` (Zhipu's "1214": a parameter is
    invalid). Only 400-599 is taken for an HTTP status; here the type still says the request was refused."""
    decoder = provider_for("openai_chat", "http://127.0.0.1:9/v1").adapter.stream_decoder()
    error = {"code": "1214", "message": "messages 参数非法。请检查文档。", "type": "invalid_request_error"}
    with pytest.raises(BadRequestError):
        decoder.feed(SseEvent(event=None, data=json.dumps({"error": error}, ensure_ascii=False)))


async def test_a_refused_connection_is_a_retryable_connection_error(http: httpx.AsyncClient) -> None:
    closed = httpx.URL("http://127.0.0.1:9")  # discard port: nothing listens
    client = LLMClient(provider_for("openai_chat", str(closed)), http, retry=None)
    with pytest.raises(ProviderConnectionError) as raised:
        await client.complete(QUESTION)
    assert raised.value.retryable


@pytest.mark.parametrize("streaming", [False, True], ids=["complete", "stream"])
async def test_a_timeout_before_the_first_event_is_retryable(
    loopback: Loopback, http: httpx.AsyncClient, streaming: bool
) -> None:
    stem = "text_stream" if streaming else "text"
    loopback.queue(Fixture.load(f"openai_chat/{stem}", stall_before=1.5))
    client = client_for("openai_chat", loopback, http, retry=None)
    with pytest.raises(ProviderTimeoutError) as raised:
        if streaming:
            await client.stream(QUESTION, timeout=0.3).response()
        else:
            await client.complete(QUESTION, timeout=0.3)
    assert raised.value.retryable


async def test_a_timeout_after_events_reached_the_caller_is_not_retryable(
    loopback: Loopback, http: httpx.AsyncClient
) -> None:
    fixture = Fixture.load("openai_chat/text_stream")
    first_text = re.search(rb'"content":"[^"]', fixture.body)
    assert first_text is not None
    first_event_end = fixture.body.index(b"\n\n", first_text.start()) + 2
    loopback.queue(dataclasses.replace(fixture, stall_after=(first_event_end, 1.5)))
    seen: list[StreamEvent] = []
    with pytest.raises(ProviderTimeoutError) as raised:
        async for event in client_for("openai_chat", loopback, http, retry=None).stream(QUESTION, timeout=0.3):
            seen.append(event)
    assert seen and isinstance(seen[0], TextDelta)
    assert not raised.value.retryable


async def test_a_stream_cut_before_its_end_marker_is_incomplete(loopback: Loopback, http: httpx.AsyncClient) -> None:
    fixture = Fixture.load("anthropic/text_stream")
    loopback.queue(dataclasses.replace(fixture, body=fixture.body[: fixture.body.index(b"event: message_delta")]))
    with pytest.raises(IncompleteStreamError) as raised:
        await client_for("anthropic", loopback, http, retry=None).stream(QUESTION).response()
    assert raised.value.retryable


async def test_a_body_that_is_not_json_is_malformed(loopback: Loopback, http: httpx.AsyncClient) -> None:
    loopback.queue(Fixture(status=200, headers={"content-type": "text/html"}, body=b"<html>gateway</html>"))
    with pytest.raises(MalformedResponseError) as raised:
        await client_for("openai_chat", loopback, http, retry=None).complete(QUESTION)
    assert not raised.value.retryable and raised.value.body == "<html>gateway</html>"


async def test_tool_arguments_that_are_not_json_are_malformed(loopback: Loopback, http: httpx.AsyncClient) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "杭'}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    loopback.queue(Fixture.json({"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}))
    with pytest.raises(MalformedResponseError, match="get_weather"):
        await client_for("openai_chat", loopback, http, retry=None).complete(QUESTION)


@pytest.mark.parametrize("streaming", [False, True], ids=["complete", "stream"])
async def test_cancelling_the_caller_cancels_the_call_promptly(
    loopback: Loopback, http: httpx.AsyncClient, streaming: bool
) -> None:
    loopback.queue(Fixture.load("openai_chat/text_stream" if streaming else "openai_chat/text", stall_before=3.0))
    client = client_for("openai_chat", loopback, http, retry=None)
    call = client.stream(QUESTION).response() if streaming else client.complete(QUESTION)
    task = asyncio.create_task(call)
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=1.0)
