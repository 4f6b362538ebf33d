"""Every failure the LLM client raises, as one tree; adapters map wire errors onto it at the transport boundary.

    LLMError                      provider, status, body, retryable, retry_after
    ├── ConfigurationError        a key, base URL or model is missing; names the environment variable
    ├── TransportError            no usable HTTP answer
    │   ├── ProviderConnectionError   refused, reset or dropped connection            retryable
    │   └── ProviderTimeoutError      no answer in time        retryable only before the first streamed event
    ├── ProviderError             the provider answered with an error (HTTP status, or an error event mid-stream)
    │   ├── BadRequestError           400, 404, 413, 422: the request itself is wrong
    │   ├── AuthenticationError       401, 403
    │   ├── QuotaExhaustedError       402, 429 for spent quota or billing (insufficient_quota, per-day quotas)
    │   ├── RateLimitError            429                                               retryable
    │   ├── OverloadedError           503, Anthropic 529, "overloaded" events           retryable
    │   └── ServerError               408, 500, 502, 504 and other 5xx; failed responses  retryable
    ├── ResponseError             HTTP 200, but the answer is unusable
    │   ├── IncompleteStreamError     the stream ended before its end marker            retryable
    │   ├── MalformedResponseError    a body or tool arguments that do not parse
    │   └── TruncatedAnswerError      `chat_with_json`: the answer was cut at the output limit (`limit`)
    ├── ToolRoundsExceededError   `complete_with_tools` hit max_rounds with tools still being called
    └── OutputValidationError     `chat_with_json`: the answer did not match the schema, even after one repair

`retryable` says whether sending the same request again may succeed; `retry_after` (seconds) is the provider's
own hint, when it gave one. The client's RetryEngine honours both; inside a Temporal activity the activity turns
them into an `ApplicationError` with `non_retryable` and `next_retry_delay`, and Temporal retries.
"""

from collections.abc import Mapping
from typing import Any


class LLMError(Exception):
    """The root of the tree: which provider failed, its HTTP status and error body, and whether to retry."""

    retryable_by_default = False

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status: int | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        retryable: bool | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status = status
        self.body = body
        self.headers = dict(headers or {})
        self.retryable = self.retryable_by_default if retryable is None else retryable
        self.retry_after = retry_after

    def __str__(self) -> str:
        status = f" {self.status}" if self.status is not None else ""
        return f"{self.provider}{status}: {self.message}"


class ConfigurationError(LLMError):
    """A key, base URL or model is missing; the message names the environment variable to set."""


class TransportError(LLMError):
    """No usable HTTP answer arrived."""

    retryable_by_default = True


class ProviderConnectionError(TransportError):
    """The connection was refused, reset or dropped; retryable."""


class ProviderTimeoutError(TransportError):
    """No answer in time; retryable only before the first streamed event reached the caller."""


class ProviderError(LLMError):
    """The provider answered with an error: an HTTP error status, or an error event inside a 200 stream."""


class BadRequestError(ProviderError):
    """400, 404, 413, 422: the request itself is wrong, and sending it again fails the same way."""


class AuthenticationError(ProviderError):
    """401, 403: the key is missing, wrong or not allowed this model."""


class QuotaExhaustedError(ProviderError):
    """402, or a 429 for spent quota or billing: waiting a little does not help."""


class RateLimitError(ProviderError):
    """429: a per-minute limit; retryable, after `retry_after` when the provider gave it."""

    retryable_by_default = True


class OverloadedError(ProviderError):
    """503, Anthropic 529, "overloaded" events: the provider is busy for everyone; retryable."""

    retryable_by_default = True


class ServerError(ProviderError):
    """408, 500, 502, 504 and other 5xx, failed responses: the provider failed; retryable."""

    retryable_by_default = True


class ResponseError(LLMError):
    """HTTP 200, but the answer is unusable."""


class IncompleteStreamError(ResponseError):
    """The stream ended before its end marker; retryable."""

    retryable_by_default = True


class MalformedResponseError(ResponseError):
    """A body, stream event or tool arguments that do not parse, or a stream that contradicts itself."""


class TruncatedAnswerError(ResponseError):
    """`chat_with_json`: the answer stopped at the output limit (`limit` tokens, None: the provider's own), so its
    JSON is incomplete; asking again with the same limit gets the same cut."""

    def __init__(self, message: str, *, provider: str, limit: int | None) -> None:
        super().__init__(message, provider=provider)
        self.limit = limit


class ToolRoundsExceededError(LLMError):
    """`complete_with_tools` hit max_rounds with the model still calling tools."""


class OutputValidationError(LLMError):
    """`chat_with_json`: the answer did not match the schema, even after one repair round."""

    def __init__(self, message: str, *, provider: str, answer: str, errors: list[Any]) -> None:
        super().__init__(message, provider=provider, body=answer)
        self.errors = errors


def error_for_status(status: int) -> type[ProviderError]:
    """The error class an HTTP status means on its own; adapters refine 429 (quota) and error events."""
    if status == 429:
        return RateLimitError
    if status == 402:
        return QuotaExhaustedError
    if status in (401, 403):
        return AuthenticationError
    if status in (503, 529):
        return OverloadedError
    if status == 408 or status >= 500:
        return ServerError
    return BadRequestError
