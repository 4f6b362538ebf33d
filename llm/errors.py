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
    │   └── MalformedResponseError    a body or tool arguments that do not parse
    ├── ToolRoundsExceededError   `complete_with_tools` hit max_rounds with tools still being called
    └── OutputValidationError     `chat_with_json`: the answer did not match the schema, even after one repair

`retryable` says whether sending the same request again may succeed; `retry_after` (seconds) is the provider's
own hint, when it gave one. The client's RetryEngine honours both; inside a Temporal activity the activity turns
them into an `ApplicationError` with `non_retryable` and `next_retry_delay`, and Temporal retries.
"""

from collections.abc import Mapping
from typing import Any


class LLMError(Exception):
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
    pass


class TransportError(LLMError):
    retryable_by_default = True


class ProviderConnectionError(TransportError):
    pass


class ProviderTimeoutError(TransportError):
    pass


class ProviderError(LLMError):
    pass


class BadRequestError(ProviderError):
    pass


class AuthenticationError(ProviderError):
    pass


class QuotaExhaustedError(ProviderError):
    pass


class RateLimitError(ProviderError):
    retryable_by_default = True


class OverloadedError(ProviderError):
    retryable_by_default = True


class ServerError(ProviderError):
    retryable_by_default = True


class ResponseError(LLMError):
    pass


class IncompleteStreamError(ResponseError):
    retryable_by_default = True


class MalformedResponseError(ResponseError):
    pass


class ToolRoundsExceededError(LLMError):
    pass


class OutputValidationError(LLMError):
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
