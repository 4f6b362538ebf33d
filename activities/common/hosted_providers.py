"""The task-based image API interface (`SubmittedTask` and `TaskPoll` are in `models.hosted_tasks`: the
workflow reads them too), and the configured providers: found by model or by name, and a task polled or cancelled
as any family's poll and cancel activities do it."""

from collections.abc import Sequence
from typing import Protocol

from activities.common.failures import permanent
from activities.common.provider_failures import provider_failure
from imaging.image_provider import ImageRequest
from imaging.providers.errors import ImageProviderError
from models.errors import ErrorCode
from models.hosted_tasks import Cancelled, PollRequest, SubmittedTask, TaskPoll


class HostedImageProvider(Protocol):
    """An image API that works by task: each method is one short HTTP call (one activity each)."""

    name: str

    def supports(self, model: str) -> bool:
        """Whether this provider serves `preferredModel` = `model`."""
        ...

    def max_references(self, model: str | None) -> int:
        """How many reference images `model` takes with a text-to-image request (0: none)."""
        ...

    async def submit(self, request: ImageRequest) -> SubmittedTask:
        """Create the task (text to image, or an edit with a mask where the API offers it)."""
        ...

    async def poll(self, task_id: str) -> TaskPoll:
        """The task's status now."""
        ...

    async def fetch(self, url: str) -> bytes:
        """The finished image from the provider's host, re-encoded as PNG."""
        ...

    async def cancel(self, task_id: str) -> bool:
        """Cancel the task where the API allows it; False when it could not be cancelled (already running)."""
        ...


class HostedProviders:
    """The task-based image APIs this worker is configured for; a model or name none serves is a permanent
    IMAGE_REQUEST_REFUSED (the gateway only routes configured models here)."""

    def __init__(self, providers: Sequence[HostedImageProvider]) -> None:
        self._providers = list(providers)

    def for_model(self, model: str | None) -> HostedImageProvider:
        for provider in self._providers:
            if model is not None and provider.supports(model):
                return provider
        raise permanent(ErrorCode.IMAGE_REQUEST_REFUSED, f"没有配置能生成 {model} 的图片服务")

    def named(self, name: str) -> HostedImageProvider:
        for provider in self._providers:
            if provider.name == name:
                return provider
        raise permanent(ErrorCode.IMAGE_REQUEST_REFUSED, f"这个 worker 没有配置图片服务 {name}")

    async def poll(self, request: PollRequest) -> TaskPoll:
        """The task's status; a task the provider failed or cancelled is a permanent IMAGE_TASK_FAILED (one that
        moderation failed was raised by the provider as IMAGE_CONTENT_REFUSED already)."""
        try:
            seen = await self.named(request.task.provider).poll(request.task.task_id)
        except ImageProviderError as err:
            raise provider_failure(err) from err
        if seen.status in ("failed", "canceled"):
            detail = f"{seen.code}: {seen.message}".strip(": ")
            raise permanent(ErrorCode.IMAGE_TASK_FAILED, f"图片生成任务失败（{seen.status}）：{detail}")
        return seen

    async def cancel(self, request: PollRequest) -> Cancelled:
        try:
            return Cancelled(cancelled=await self.named(request.task.provider).cancel(request.task.task_id))
        except ImageProviderError as err:
            raise provider_failure(err) from err
