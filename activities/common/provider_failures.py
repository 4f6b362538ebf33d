"""A hosted image API's failure as Temporal should treat it (`provider_failure`): throttling and outages are
retried (a throttled call after the provider's hint, through `next_retry_delay`); everything else is permanent
with a code a user understands: moderation (IMAGE_CONTENT_REFUSED), a spent quota (IMAGE_QUOTA_EXHAUSTED, after
which the run may fall back to the local renderer), a refused parameter, a bad key."""

from datetime import timedelta

from temporalio.exceptions import ApplicationError

from activities.common.failures import permanent
from imaging.providers.errors import (
    ContentRefused,
    ImageProviderError,
    InvalidImageRequest,
    ProviderAuthFailed,
    QuotaExhausted,
)
from models.errors import ErrorCode

MAX_RETRY_AFTER = 30.0
"""Seconds; a longer hint is cut to this (the run's minute must still hold the task)."""


def provider_failure(err: ImageProviderError) -> ApplicationError:
    """A provider's error as Temporal should treat it: retried (after its hint), or permanent with a code."""
    detail = f"{err.provider} {err.code or err.status or ''}: {err.message}".strip()
    if err.retryable:
        delay = timedelta(seconds=min(err.retry_after, MAX_RETRY_AFTER)) if err.retry_after is not None else None
        return ApplicationError(detail, type=type(err).__name__, next_retry_delay=delay)
    if isinstance(err, ContentRefused):
        return permanent(ErrorCode.IMAGE_CONTENT_REFUSED, f"内容安全审核未通过，请换一种描述（{detail}）")
    if isinstance(err, QuotaExhausted):
        return permanent(ErrorCode.IMAGE_QUOTA_EXHAUSTED, f"图片服务的额度已用完（{detail}）")
    if isinstance(err, ProviderAuthFailed):
        return permanent(ErrorCode.IMAGE_PROVIDER_AUTH, f"图片服务的 API Key 无效或无权限（{detail}）")
    assert isinstance(err, InvalidImageRequest), f"an unmapped provider error: {type(err).__name__}"
    return permanent(ErrorCode.IMAGE_REQUEST_REFUSED, f"图片服务拒绝了这个请求（{detail}）")
