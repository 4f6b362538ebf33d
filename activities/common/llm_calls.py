"""How activities call the LLM client: the one path from a node to a model's answer (ARCHITECTURE rule 15), and
the mapping of the client's typed errors onto Temporal failures (rule 2, STYLE "Temporal owns retries").

    ask_json(llm, question)                    → the validated answer; the client's `LLMError`s as they are
    json_answer_or_invalid(llm, question)      → the validated answer, or the `OutputValidationError`
    json_answer(llm, question, code=...)       → the validated answer; an invalid one is `permanent(code)`
    model_turn(llm, request, on_text=...)      → one call's answer (a tool loop's turn: tool calls, or text)
                                                 (`on_stream`: every stream event, a tool call's arguments too)

A JSON question goes through the client's `chat_with_json`: one call, and one repair round that tells the model
what was wrong when the answer does not validate; an answer cut at its output limit is a non-retryable
`TruncatedAnswerError` naming the node and the limit (asking again gets the same cut), never a repair round.
A question with somewhere to show its answer (`JsonQuestion.shown`) is streamed, and each round's text goes
there as it is written, each round's end too (the repair round's answer starts over).

Choices: where an answer must name something that exists (an agent of a registry, a tool, a component of an
earlier document), the node asks with its answer model `narrowed` for the request, the field typed as one of
those names (`choice`, `choices`): the JSON Schema the model is sent lists them (`enum`, so a provider with
structured output cannot name another), and the answer is validated against the same ones, so a name outside
them goes back in the repair round with the names allowed. The answer is still an instance of the node's model.

Time: a call's budget is the running activity's own start-to-close timeout less `TIME_MARGIN` (`call_budget`),
so a node declared with 90 s gets 90 s, whatever `LLM_TIMEOUT_SECONDS` says. A node that declares a heartbeat
timeout, or a caller that wants the text as it is written (`on_text`), gets its answer streamed, and
`LLM_TIMEOUT_SECONDS` (the client's `timeout`) is the longest wait for the first chunk and between two chunks, so a
stalled stream is noticed long before the budget ends. A node with a heartbeat timeout heartbeats every
`HEARTBEAT_SHARE` of it for as long as its call runs, whether the model writes or still reads the prompt: the
heartbeat says the worker is alive (a worker that died is noticed after the heartbeat timeout, and the node retried
elsewhere), and the client's own limits, not the heartbeat, say when a model is too slow.

Output: every call is sent its node's output limit (`models.output_limits`, by the running activity's name),
capped at the client's `max_output_tokens` (`LLM_MAX_OUTPUT_TOKENS`, what the configured model accepts).

Errors: the client runs with its RetryEngine off, so Temporal owns retries: a retryable error (429, 5xx, 529, a
dropped connection, a cut stream) becomes a retryable `ApplicationError` whose `next_retry_delay` is the
provider's Retry-After (capped), so Temporal waits as long as the provider asked instead of the node's backoff.
It is logged here as one line with its status, and raised as a BENIGN failure, which the SDK logs at debug level
instead of a warning with the traceback. Anything else (quota spent, bad request, bad key, truncation) is
non-retryable and logged by the SDK as a failure.
"""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Annotated, Any, Generic, Literal, Protocol, TypeVar, get_args, get_origin

from pydantic import BaseModel, create_model
from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from activities.common.failures import permanent
from llm import Done, LLMClient, LLMRequest, LLMResponse, Message, StreamEvent, TextDelta
from llm.errors import LLMError, OutputValidationError, TransportError
from llm.retry import RetryConfig
from models.output_limits import output_tokens

SchemaT = TypeVar("SchemaT", bound=BaseModel)

MAX_RETRY_AFTER = RetryConfig().max_delay
"""Seconds; a longer Retry-After is cut to this, as the client's own RetryEngine does."""
TIME_MARGIN = 1.0
"""Seconds an activity keeps back from its start-to-close timeout to report an LLM timeout itself."""
MIN_BUDGET = 0.5
"""Seconds; the least a call is given, however short its activity."""
HEARTBEAT_SHARE = 0.2
"""A call heartbeats once per this share of its heartbeat timeout (3 s of 15 s), not per chunk. The SDK starts a
task, converts the details and hands each heartbeat to its core, which sends the server one per 80 % of the timeout
anyway: a heartbeat per chunk (40 a second per call) cost a worker streaming 50 runs' calls CPU for nothing."""


class ShownAnswer(Protocol):
    """Where a JSON question's answer text goes while the model writes it."""

    async def add(self, delta: str) -> None:
        """The next piece of the answer's text (reasoning already dropped)."""

    async def answer_ended(self) -> None:
        """One answer ended (text after it is the repair round's answer)."""


@dataclass(frozen=True)
class JsonQuestion(Generic[SchemaT]):
    """A node's question whose answer is a `schema` object."""

    node: str
    """The node's name, as its failure messages call it."""
    schema: type[SchemaT]
    messages: Sequence[Message]
    system: str = ""
    temperature: float | None = None
    shown: ShownAnswer | None = None
    """Where the answer's text goes as it is written (None: the answer is only parsed)."""


def choice(names: Sequence[str]) -> Any:
    """The type of a string that is one of `names` (at least one), for a field of a `narrowed` answer model."""
    if not names:
        raise ValueError("a choice needs at least one name")
    return Literal[tuple(names)]


def choices(names: Sequence[str]) -> Any:
    """The type of a list of strings that are each one of `names`."""
    return list[choice(names)]  # type: ignore[misc]


def narrowed(schema: type[SchemaT], title: str = "", /, **fields: Any) -> type[SchemaT]:
    """`schema` for one request (named `title` in the JSON Schema, by default as `schema`): a subclass whose
    named fields have the given types (`choice(...)`, `choices(...)`, a narrowed model), each keeping its
    declared default, alias and constraints (an `Annotated` type's own metadata, such as a validator or a
    `Field(json_schema_extra=...)`, is added after them)."""
    retyped: dict[str, Any] = {}
    for name, kind in fields.items():
        base, *metadata = get_args(kind) if get_origin(kind) is Annotated else (kind,)
        retyped[name] = Annotated[(base, schema.model_fields[name], *metadata)]
    return create_model(title or schema.__name__, __base__=schema, **retyped)


async def ask_json(llm: LLMClient, question: JsonQuestion[SchemaT]) -> SchemaT:
    """The validated answer, after one repair round if needed; raises the client's `LLMError`s (an
    `OutputValidationError` when the repaired answer is still invalid), for a node that degrades on any of them."""
    shown = question.shown
    options = _call_options(llm, shown.add, shown.answer_ended) if shown is not None else _call_options(llm, None)
    async with _heartbeating():
        return await llm.chat_with_json(
            question.messages,
            question.schema,
            system=question.system,
            temperature=question.temperature,
            max_output_tokens=output_limit(llm),
            **options,
        )


async def json_answer_or_invalid(llm: LLMClient, question: JsonQuestion[SchemaT]) -> SchemaT | OutputValidationError:
    """The validated answer, or the validation error of an answer still invalid after the repair round (for a
    node that has a use for it); other `LLMError`s become Temporal failures (`llm_failure`)."""
    try:
        return await ask_json(llm, question)
    except OutputValidationError as err:
        return err
    except LLMError as err:
        raise llm_failure(err, node=question.node) from err


async def json_answer(
    llm: LLMClient,
    question: JsonQuestion[SchemaT],
    *,
    code: StrEnum,
    message: Callable[[OutputValidationError], str] | None = None,
) -> SchemaT:
    """The validated answer; one still invalid after the repair round is `permanent(code, ...)`, described by
    `message` (by default it names the node and counts the errors); other `LLMError`s become `llm_failure`s."""
    answer = await json_answer_or_invalid(llm, question)
    if isinstance(answer, OutputValidationError):
        described = (
            message(answer)
            if message is not None
            else f"LLM 的 JSON 不符合 {question.node} 的格式：{len(answer.errors)} 处错误"
        )
        raise permanent(code, described) from answer
    return answer


async def model_turn(
    llm: LLMClient,
    request: LLMRequest,
    *,
    on_text: Callable[[str], Awaitable[None]] | None = None,
    on_stream: Callable[[StreamEvent], None] | None = None,
) -> LLMResponse:
    """One model call's answer as it is: a turn of a tool loop (tool calls, or the final text; the workflow runs
    the tools, and answers a call whose arguments were cut off with an error result), or a plain text answer,
    streamed to `on_text` as it is written when given, and every stream event (tool calls' arguments too) to
    `on_stream`; the node's output limit is sent. `LLMError`s become Temporal failures (`llm_failure`)."""
    request = request.model_copy(update={"max_output_tokens": output_limit(llm)})
    try:
        async with _heartbeating():
            return await llm.complete(request, **_call_options(llm, on_text, on_stream=on_stream))
    except LLMError as err:
        raise llm_failure(err) from err


def llm_failure(error: LLMError, *, node: str | None = None) -> ApplicationError:
    """The client's error as Temporal's failure: retryable ones after the provider's Retry-After, logged as one
    line and raised as BENIGN (no traceback in the worker's log); the message names the node when given. A stream
    that stalled or dropped after its first chunk is retryable here too: the client would not resend it (its
    caller holds part of the answer), but a new attempt of the activity starts the answer afresh."""
    retryable = error.retryable or isinstance(error, TransportError)
    delay = None
    if retryable and error.retry_after is not None:
        delay = timedelta(seconds=min(error.retry_after, MAX_RETRY_AFTER))
    details = {"provider": error.provider, "status": error.status, "retryAfter": error.retry_after}
    message = f"{node}: {error}" if node else str(error)
    if retryable:
        activity.logger.warning("LLM call failed, Temporal retries it: %s (%s)", message, type(error).__name__)
    return ApplicationError(
        message,
        details,
        type=type(error).__name__,
        non_retryable=not retryable,
        next_retry_delay=delay,
        category=ApplicationErrorCategory.BENIGN if retryable else ApplicationErrorCategory.UNSPECIFIED,
    )


def output_limit(llm: LLMClient) -> int:
    """The running node's output limit (`models.output_limits`), at most what the client's model accepts."""
    return min(output_tokens(activity.info().activity_type), llm.max_output_tokens)


def call_budget(fallback: float) -> float:
    """Seconds the running activity gives its model call: its start-to-close timeout less `TIME_MARGIN` (at
    least `MIN_BUDGET`); `fallback` when it declares none."""
    info = activity.info()
    limit = info.start_to_close_timeout or info.schedule_to_close_timeout
    if limit is None:
        return fallback
    return max(MIN_BUDGET, limit.total_seconds() - TIME_MARGIN)


@asynccontextmanager
async def _heartbeating() -> AsyncIterator[None]:
    """While the block runs, the running activity heartbeats every `HEARTBEAT_SHARE` of its heartbeat timeout (when
    it has one): the worker is alive, however long the model takes to its first chunk."""
    heartbeat = activity.info().heartbeat_timeout
    if heartbeat is None:
        yield
        return

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(heartbeat.total_seconds() * HEARTBEAT_SHARE)

    beating = asyncio.create_task(beat())
    try:
        yield
    finally:
        beating.cancel()
        with suppress(asyncio.CancelledError):
            await beating


def _call_options(
    llm: LLMClient,
    on_text: Callable[[str], Awaitable[None]] | None,
    on_end: Callable[[], Awaitable[None]] | None = None,
    *,
    on_stream: Callable[[StreamEvent], None] | None = None,
) -> dict[str, Any]:
    """The client's timing and streaming options for a call inside the running activity (see the docstring):
    `on_text` gets each text delta, `on_end` the end of each answer, `on_stream` every event."""
    budget = call_budget(llm.timeout)
    if activity.info().heartbeat_timeout is None and on_text is None and on_stream is None:
        return {"timeout": budget}
    idle = min(llm.timeout, budget)

    async def on_event(event: StreamEvent) -> None:
        if on_stream is not None:
            on_stream(event)
        if on_text is not None and isinstance(event, TextDelta):
            await on_text(event.text)
        if on_end is not None and isinstance(event, Done):
            await on_end()

    return {"timeout": budget, "idle_timeout": idle, "on_event": on_event}
