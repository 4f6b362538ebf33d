"""LLMClient (seed 003 §4): one interface over every provider, on a shared `httpx.AsyncClient`.

    complete(request)                         → LLMResponse
    stream(request)                           → LLMStream: normalized events, then the final response
    complete_with_tools(request, executor)    → LLMResponse after the model stops calling tools
    chat_with_json(messages, schema)          → a validated pydantic model

Every call takes `timeout` (seconds): the whole answer for `complete`, each next network read for `stream`.
`complete` streams instead when given `idle_timeout` (the longest wait for the first and each next chunk) or
`on_event` (called with every event, e.g. to report progress): `timeout` is then the whole answer's. A server
that ignores `stream: true` and sends one JSON body is read as that whole answer. `<think>` blocks never reach
an answer's text (`llm.reasoning`). `chat_with_json` reads the JSON wherever the answer put it
(`llm.json_output`); an answer cut at the output limit raises `TruncatedAnswerError` instead of a repair round.
Cancelling the calling task cancels the call and closes its connection. Retries go through the RetryEngine
given (on by default); a stream is only retried before its first event reached the caller. Build the client
with `retry=None` where something else owns retries, as Temporal does inside an activity.
"""

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from llm.adapters.base import HttpCall, StreamDecoder
from llm.errors import (
    IncompleteStreamError,
    MalformedResponseError,
    OutputValidationError,
    ProviderConnectionError,
    ProviderTimeoutError,
    ToolRoundsExceededError,
    TruncatedAnswerError,
)
from llm.json_output import json_instructions, parse_model, repair_prompt
from llm.providers import Provider
from llm.reasoning import strip_reasoning
from llm.retry import RetryEngine
from llm.sse import sse_events
from llm.tools import ToolExecutor, run_tool_calls
from llm.types import Done, JsonOutput, LLMRequest, LLMResponse, Message, StreamEvent, TextDelta, TokenUsage

T = TypeVar("T")
SchemaT = TypeVar("SchemaT", bound=BaseModel)

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_OUTPUT_TOKENS = 16384
"""The cap on any call's output limit unless the model's own is given (`LLM_MAX_OUTPUT_TOKENS`)."""
DEFAULT_MAX_ROUNDS = 8


class LLMClient:
    """One provider behind the calls listed above; use `async with` (or `aclose`) to close an httpx client it made."""

    def __init__(
        self,
        provider: Provider,
        http: httpx.AsyncClient | None = None,
        *,
        retry: RetryEngine | None = RetryEngine(),  # noqa: B008 - stateless, shared on purpose
        timeout: float = DEFAULT_TIMEOUT,
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
    ) -> None:
        self.provider = provider
        self._http = http or httpx.AsyncClient()
        self._owns_http = http is None
        self._retry = retry
        self.timeout = timeout
        self.max_output_tokens = max_output_tokens
        """The most output tokens the model accepts in one answer: no call's limit goes above it."""

    @property
    def name(self) -> str:
        return f"{self.provider.name}/{self.provider.model}"

    async def __aenter__(self) -> "LLMClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def complete(
        self,
        request: LLMRequest,
        *,
        timeout: float | None = None,
        idle_timeout: float | None = None,
        on_event: Callable[[StreamEvent], Awaitable[None]] | None = None,
    ) -> LLMResponse:
        if idle_timeout is None and on_event is None:
            return await self._retrying(lambda: self._complete_once(request, timeout or self.timeout))
        whole = timeout or self.timeout
        try:
            async with asyncio.timeout(whole):
                async with self.stream(request, timeout=idle_timeout or self.timeout) as stream:
                    async for event in stream:
                        if on_event is not None:
                            await on_event(event)
                    return await stream.response()
        except TimeoutError as err:
            raise ProviderTimeoutError(f"no whole answer within {whole:g} s", provider=self.provider.name) from err

    def stream(self, request: LLMRequest, *, timeout: float | None = None) -> "LLMStream":
        return LLMStream(self._stream_events(request, timeout or self.timeout))

    async def complete_with_tools(
        self,
        request: LLMRequest,
        tool_executor: ToolExecutor,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        *,
        timeout: float | None = None,
    ) -> LLMResponse:
        """Calls the model, runs the tools it asks for and sends the results back, until it answers without
        tool calls. The result's usage is the sum over all rounds."""
        messages = list(request.messages)
        usage = TokenUsage()
        for _ in range(max_rounds):
            response = await self.complete(request.model_copy(update={"messages": tuple(messages)}), timeout=timeout)
            usage += response.usage
            if not response.tool_calls:
                return response.model_copy(update={"usage": usage})
            messages += [response.as_message(), await run_tool_calls(response.tool_calls, tool_executor)]
        raise ToolRoundsExceededError(
            f"the model still called tools after {max_rounds} rounds", provider=self.provider.name
        )

    async def chat_with_json(
        self,
        messages: Sequence[Message],
        schema: type[SchemaT],
        *,
        system: str = "",
        temperature: float | None = None,
        max_output_tokens: int | None = None,
        timeout: float | None = None,
        idle_timeout: float | None = None,
        on_event: Callable[[StreamEvent], Awaitable[None]] | None = None,
    ) -> SchemaT:
        """The answer as a validated `schema`: the provider's JSON mode where it has one, instructions otherwise;
        an invalid answer gets one repair round that says what was wrong, then `OutputValidationError`; an answer
        cut at the output limit is `TruncatedAnswerError` (a repair would be cut the same way). `timeout` is
        both rounds' together; `idle_timeout` and `on_event` as for `complete`."""
        json_schema = schema.model_json_schema()
        if self.provider.adapter.json_mode != "json_schema":
            system = f"{system}\n\n{json_instructions(json_schema)}".strip()
        request = LLMRequest(
            messages=tuple(messages),
            system=system,
            temperature=temperature,
            max_output_tokens=max_output_tokens,
            json_output=JsonOutput(name=schema.__name__, schema=json_schema),
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout or self.timeout)

        async def ask(asked: LLMRequest) -> LLMResponse:
            remaining = max(deadline - loop.time(), 0.001)
            answer = await self.complete(asked, timeout=remaining, idle_timeout=idle_timeout, on_event=on_event)
            if answer.finish_reason == "max_tokens":
                limit = f"max_tokens={max_output_tokens}" if max_output_tokens else "the provider's output limit"
                raise TruncatedAnswerError(
                    f"the {schema.__name__} answer was cut at {limit} ({answer.usage.output_tokens} tokens)",
                    provider=self.provider.name,
                    limit=max_output_tokens,
                )
            return answer

        answer = await ask(request)
        try:
            return parse_model(schema, answer.text)
        except ValidationError as first_error:
            repair = (*request.messages, Message.assistant(answer.text), Message.user(repair_prompt(first_error)))
            answer = await ask(request.model_copy(update={"messages": repair}))
        try:
            return parse_model(schema, answer.text)
        except ValidationError as err:
            raise OutputValidationError(
                f"answer does not match {schema.__name__} after one repair round: {err.error_count()} errors",
                provider=self.provider.name,
                answer=answer.text,
                errors=err.errors(include_url=False),
            ) from err

    async def _retrying(self, attempt: Callable[[], Awaitable[T]]) -> T:
        return await (self._retry.execute(attempt) if self._retry is not None else attempt())

    def _http_request(self, call: HttpCall, timeout: float) -> httpx.Request:
        return self._http.build_request(
            "POST",
            self.provider.base_url + call.path,
            params=call.params,
            json=call.body,
            headers=self.provider.auth_headers(),
            timeout=timeout,
        )

    async def _complete_once(self, request: LLMRequest, timeout: float) -> LLMResponse:
        adapter = self.provider.adapter
        call = adapter.build_request(request, request.model or self.provider.model, stream=False)
        try:
            async with asyncio.timeout(timeout):
                response = await self._http.send(self._http_request(call, timeout))
        except (TimeoutError, httpx.TimeoutException) as err:
            raise ProviderTimeoutError(f"no answer within {timeout:g} s", provider=self.provider.name) from err
        except httpx.TransportError as err:
            raise ProviderConnectionError(f"connection failed: {err!r}", provider=self.provider.name) from err
        body = _body(response)
        if response.is_error:
            raise adapter.convert_error(response.status_code, response.headers, body)
        return self._parsed(body)

    def _parsed(self, body: Any) -> LLMResponse:
        """A whole answer's body as the response, its `<think>` blocks dropped."""
        if not isinstance(body, dict):
            raise MalformedResponseError("the answer is not a JSON object", provider=self.provider.name, body=body)
        try:
            parsed = self.provider.adapter.parse_response(body)
        except (KeyError, TypeError, IndexError, AttributeError) as err:
            raise MalformedResponseError(
                f"unexpected answer shape: {err!r}", provider=self.provider.name, body=body
            ) from err
        return parsed.model_copy(update={"text": strip_reasoning(parsed.text)})

    async def _stream_events(self, request: LLMRequest, timeout: float) -> AsyncGenerator[StreamEvent, None]:
        adapter = self.provider.adapter
        call = adapter.build_request(request, request.model or self.provider.model, stream=True)
        opened = await self._retrying(lambda: self._open_stream(call, timeout))
        async with opened.exit_stack:
            if opened.whole is not None:
                if opened.whole.text:
                    yield TextDelta(text=opened.whole.text)
                yield Done(response=opened.whole)
                return
            for event in opened.first_events:
                yield event
            while not opened.decoder.finished:
                events = await opened.next_events(started=True)
                if events is None:
                    break
                for event in events:
                    yield event
            if not opened.decoder.complete():
                raise IncompleteStreamError("the stream ended before its end marker", provider=self.provider.name)
            final = opened.decoder.acc.response()
            for event in opened.decoder.acc.drain():
                yield event
            yield Done(response=final)

    async def _open_stream(self, call: HttpCall, timeout: float) -> "_OpenStream":
        """Sends the request and reads until the first normalized event (the retryable part of a stream)."""
        stack = AsyncExitStack()
        try:
            send = self._http.send(self._http_request(call, timeout), stream=True)
            response = await _transport(send, self.provider.name, timeout, started=False)
            stack.push_async_callback(response.aclose)
            if response.is_error:
                await response.aread()
                raise self.provider.adapter.convert_error(response.status_code, response.headers, _body(response))
            if "json" in response.headers.get("content-type", ""):
                await _transport(response.aread(), self.provider.name, timeout, started=False)
                whole = self._parsed(_body(response))
                decoder = self.provider.adapter.stream_decoder()
                sse = aiter(sse_events(response.aiter_bytes()))
                return _OpenStream(stack, sse, decoder, self.provider.name, timeout, whole=whole)
            opened = _OpenStream(
                exit_stack=stack,
                sse=aiter(sse_events(response.aiter_bytes())),
                decoder=self.provider.adapter.stream_decoder(),
                provider=self.provider.name,
                timeout=timeout,
            )
            while not opened.first_events and not opened.decoder.finished:
                events = await opened.next_events(started=False)
                if events is None:
                    break
                opened.first_events += events
            return opened
        except BaseException:
            await stack.aclose()
            raise


@dataclass
class _OpenStream:
    exit_stack: AsyncExitStack
    sse: AsyncIterator[Any]
    decoder: StreamDecoder
    provider: str
    timeout: float
    first_events: list[StreamEvent] = field(default_factory=list)
    whole: LLMResponse | None = None
    """The answer, when the server sent one JSON body instead of a stream."""

    async def next_events(self, *, started: bool) -> list[StreamEvent] | None:
        """Feeds the next SSE event to the decoder and returns what it produced; None at the end of the stream."""
        try:
            event = await _transport(anext(self.sse), self.provider, self.timeout, started=started)
        except StopAsyncIteration:
            return None
        self.decoder.feed(event)
        return self.decoder.acc.drain()


class LLMStream:
    """Iterate for the events (the last is `Done`); `await stream.response()` drains the rest and returns the
    final response. Use `async with` to close the connection when leaving early."""

    def __init__(self, events: AsyncGenerator[StreamEvent, None]) -> None:
        self._events = events
        self._response: LLMResponse | None = None

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._watch()

    async def _watch(self) -> AsyncIterator[StreamEvent]:
        async for event in self._events:
            if isinstance(event, Done):
                self._response = event.response
            yield event

    async def response(self) -> LLMResponse:
        async for _ in self._watch():
            pass
        if self._response is None:
            raise RuntimeError("the stream was already consumed without reaching its end")
        return self._response

    async def __aenter__(self) -> "LLMStream":
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._events.aclose()


async def _transport(awaitable: Awaitable[T], provider: str, timeout: float, *, started: bool) -> T:
    """Awaits a network step, mapping httpx failures onto the error tree; a timeout once events reached the
    caller is not retryable (the caller already holds part of the answer)."""
    try:
        return await awaitable
    except httpx.TimeoutException as err:
        raise ProviderTimeoutError(f"no data within {timeout:g} s", provider=provider, retryable=not started) from err
    except httpx.TransportError as err:
        raise ProviderConnectionError(f"connection failed: {err!r}", provider=provider) from err


def _body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text
