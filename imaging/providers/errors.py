"""What a hosted image API's failure means for the run, mapped at the transport boundary:

ImageProviderError                   provider, code (the provider's own), status, message
├── ProviderThrottled                retryable; `retry_after` is the provider's hint (seconds) when it gave one
├── ProviderUnavailable              retryable: 5xx, a dropped connection, a timeout
├── ContentRefused                   not retryable: content moderation refused the prompt or an image
├── QuotaExhausted                   not retryable: the account's quota or balance is spent (may fall back)
├── InvalidImageRequest              not retryable: the provider refused a parameter (size, model, mask)
└── ProviderAuthFailed               not retryable: the API key is missing, wrong or not allowed
"""

import httpx


class ImageProviderError(Exception):
    """A hosted image API refused or failed a call."""

    retryable = False

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        code: str = "",
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.code = code
        self.status = status
        self.retry_after = retry_after


class ProviderThrottled(ImageProviderError):
    """Too many requests: retried after the provider's hint."""

    retryable = True


class ProviderUnavailable(ImageProviderError):
    """The provider is down or did not answer in time: retried."""

    retryable = True


class ContentRefused(ImageProviderError):
    """Content moderation refused the request: the user is told, nothing is retried."""


class QuotaExhausted(ImageProviderError):
    """The account's quota or balance is spent: not retried; the run may fall back to the local renderer."""


class InvalidImageRequest(ImageProviderError):
    """The provider refused a parameter: not retried."""


class ProviderAuthFailed(ImageProviderError):
    """The API key is missing, wrong or not allowed: not retried."""


def unreachable(provider: str, what: str, exc: httpx.TransportError) -> ProviderUnavailable:
    """A call that got no answer (a timeout, a refused or dropped connection): retried by Temporal."""
    kind = "timed out" if isinstance(exc, httpx.TimeoutException) else "transport error"
    return ProviderUnavailable(
        f"{what} {kind}: {type(exc).__name__}: {exc}", provider=provider, code=type(exc).__name__
    )
