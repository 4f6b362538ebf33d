"""The hosted-task nodes of the image agent (issue 13): `image.submit`, `image.poll`, `image.fetch` and
`image.cancel`, each one short call to a task-based image API (`activities.image.providers.tasks`); the
workflow waits between polls on durable timers.

A provider's failure becomes a Temporal failure here (`provider_failure`): throttling and outages are retried
(a throttled call after the provider's hint, through `next_retry_delay`), everything else is permanent with a
code a user understands: moderation (IMAGE_CONTENT_REFUSED), a spent quota (IMAGE_QUOTA_EXHAUSTED, after which
the run may fall back to the local renderer), a refused parameter, a bad key. A task that failed is
IMAGE_TASK_FAILED, or IMAGE_CONTENT_REFUSED when moderation failed it (the provider raises `ContentRefused`).
"""

from datetime import timedelta

from temporalio.exceptions import ApplicationError

from activities.common.blob_refs import BlobResolver
from activities.common.failures import permanent
from activities.image.executor import image_request, stored_result
from activities.image.providers.errors import (
    ContentRefused,
    ImageProviderError,
    InvalidImageRequest,
    ProviderAuthFailed,
    QuotaExhausted,
)
from activities.image.providers.tasks import HostedImageProvider
from models.errors import ErrorCode
from models.image import hosted
from models.image.hosted import Cancelled, FetchRequest, PollRequest, SubmittedTask, TaskPoll
from models.image.nodes import ExecutorRequest
from models.image.state import ExecutionResult

MAX_RETRY_AFTER = 30.0
"""Seconds; a longer hint is cut to this (the run's minute must still hold the poll)."""


class HostedImageNodes:
    """The four activities over the configured task-based providers (by `preferredModel`)."""

    def __init__(self, providers: list[HostedImageProvider], resolver: BlobResolver) -> None:
        self._providers = providers
        self._resolver = resolver

    @hosted.SUBMIT.defn
    async def submit(self, request: ExecutorRequest) -> SubmittedTask:
        provider = self._for_model(request.preferred_model)
        asked = await image_request(request, self._resolver)
        try:
            return await provider.submit(asked)
        except ImageProviderError as err:
            raise provider_failure(err) from err

    @hosted.POLL.defn
    async def poll(self, request: PollRequest) -> TaskPoll:
        try:
            seen = await self._named(request.task.provider).poll(request.task.task_id)
        except ImageProviderError as err:
            raise provider_failure(err) from err
        if seen.status in ("failed", "canceled"):  # a moderation failure was raised by the provider already
            detail = f"{seen.code}: {seen.message}".strip(": ")
            raise permanent(ErrorCode.IMAGE_TASK_FAILED, f"图片生成任务失败（{seen.status}）：{detail}")
        return seen

    @hosted.FETCH.defn
    async def fetch(self, request: FetchRequest) -> ExecutionResult:
        provider = self._named(request.task.provider)
        asked = await image_request(request.request, self._resolver)
        try:
            png = await provider.fetch(request.image_url)
        except ImageProviderError as err:
            raise provider_failure(err) from err
        return await stored_result(png, request.request, asked, provider.name, self._resolver.blobs)

    @hosted.CANCEL.defn
    async def cancel(self, request: PollRequest) -> Cancelled:
        try:
            return Cancelled(cancelled=await self._named(request.task.provider).cancel(request.task.task_id))
        except ImageProviderError as err:
            raise provider_failure(err) from err

    def _for_model(self, model: str | None) -> HostedImageProvider:
        for provider in self._providers:
            if model is not None and provider.supports(model):
                return provider
        raise permanent(ErrorCode.IMAGE_REQUEST_REFUSED, f"没有配置能生成 {model} 的图片服务")

    def _named(self, name: str) -> HostedImageProvider:
        for provider in self._providers:
            if provider.name == name:
                return provider
        raise permanent(ErrorCode.IMAGE_REQUEST_REFUSED, f"这个 worker 没有配置图片服务 {name}")


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
