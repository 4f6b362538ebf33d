"""How activities call the LLM client: the one path from a node to a model's answer (ARCHITECTURE rule 15), and
the mapping of the client's typed errors onto Temporal failures (rule 2, STYLE "Temporal owns retries").

    ask_json(llm, question)                    → the validated answer; the client's `LLMError`s as they are
    json_answer_or_invalid(llm, question)      → the validated answer, or the `OutputValidationError`
    json_answer(llm, question, code=...)       → the validated answer; an invalid one is `permanent(code)`
    model_turn(llm, request)                   → one call's answer (a tool loop's turn: tool calls, or text)

A JSON question goes through the client's `chat_with_json`: one call, and one repair round when the answer does
not validate. Every call's timeout is `llm_timeout`. The client runs with its RetryEngine off, so Temporal owns
retries: a retryable error (429, 5xx, 529, a dropped connection) becomes a retryable `ApplicationError` whose
`next_retry_delay` is the provider's Retry-After (capped), so Temporal waits as long as the provider asked instead
of the node's backoff; anything else (quota spent, bad request, bad key) is non-retryable.

What a node asks is a `JsonQuestion`, named after the node: what later applies per node (a time budget, an output
limit from the expected answer size, streaming with heartbeats) is added to it and to these functions, not to
the callers.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Generic, TypeVar

from pydantic import BaseModel
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.common.failures import permanent
from llm import LLMClient, LLMRequest, LLMResponse, Message
from llm.errors import LLMError, OutputValidationError
from llm.retry import RetryConfig

SchemaT = TypeVar("SchemaT", bound=BaseModel)

MAX_RETRY_AFTER = RetryConfig().max_delay
"""Seconds; a longer Retry-After is cut to this, as the client's own RetryEngine does."""
TIME_MARGIN = 1.0
"""Seconds an activity keeps back from its start-to-close timeout to report an LLM timeout itself."""


@dataclass(frozen=True)
class JsonQuestion(Generic[SchemaT]):
    """A node's question whose answer is a `schema` object."""

    node: str
    """The node's name, as its failure messages call it."""
    schema: type[SchemaT]
    messages: Sequence[Message]
    system: str = ""
    temperature: float | None = None


async def ask_json(llm: LLMClient, question: JsonQuestion[SchemaT]) -> SchemaT:
    """The validated answer, after one repair round if needed; raises the client's `LLMError`s (an
    `OutputValidationError` when the repaired answer is still invalid), for a node that degrades on any of them."""
    return await llm.chat_with_json(
        question.messages,
        question.schema,
        system=question.system,
        temperature=question.temperature,
        timeout=llm_timeout(llm.timeout),
    )


async def json_answer_or_invalid(llm: LLMClient, question: JsonQuestion[SchemaT]) -> SchemaT | OutputValidationError:
    """The validated answer, or the validation error of an answer still invalid after the repair round (for a
    node that has a use for it); other `LLMError`s become Temporal failures (`llm_failure`)."""
    try:
        return await ask_json(llm, question)
    except OutputValidationError as err:
        return err
    except LLMError as err:
        raise llm_failure(err) from err


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


async def model_turn(llm: LLMClient, request: LLMRequest) -> LLMResponse:
    """One model call's answer as it is: a turn of a tool loop (tool calls, or the final text; the workflow runs
    the tools), or a plain text answer; `LLMError`s become Temporal failures (`llm_failure`)."""
    try:
        return await llm.complete(request, timeout=llm_timeout(llm.timeout))
    except LLMError as err:
        raise llm_failure(err) from err


def llm_failure(error: LLMError) -> ApplicationError:
    delay = None
    if error.retryable and error.retry_after is not None:
        delay = timedelta(seconds=min(error.retry_after, MAX_RETRY_AFTER))
    details = {"provider": error.provider, "status": error.status, "retryAfter": error.retry_after}
    return ApplicationError(
        str(error), details, type=type(error).__name__, non_retryable=not error.retryable, next_retry_delay=delay
    )


def llm_timeout(configured: float) -> float:
    """The LLM call's timeout inside the running activity: the configured one, or less if the activity's own
    start-to-close timeout would end it first."""
    limit = activity.info().start_to_close_timeout
    if limit is None:
        return configured
    return max(0.5, min(configured, limit.total_seconds() - TIME_MARGIN))
