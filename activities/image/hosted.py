"""The hosted-task nodes of the image agent (issue 13): `image.submit`, `image.poll`, `image.fetch` and
`image.cancel`, each one short call to a task-based image API (`activities.common.hosted_providers`); the
workflow waits between polls on durable timers.

A provider's failure becomes a Temporal failure through `activities.common.provider_failures`; polls and cancels
are `HostedProviders`' (the content family's image agent polls the same way).
"""

import asyncio

from activities.common.failures import permanent
from activities.common.hosted_providers import HostedProviders
from activities.common.provider_failures import provider_failure
from activities.image.executor import image_request, stored_result
from imaging.providers.errors import (
    ImageProviderError,
)
from imaging.rendering import decode_image
from models.errors import ErrorCode
from models.hosted_tasks import Cancelled, PollRequest, SubmittedTask, TaskPoll
from models.image import hosted
from models.image.hosted import FetchRequest
from models.image.nodes import ExecutorRequest
from models.image.state import TASK_TYPE_FOR_ACTION, ExecutionResult
from stores.blob_refs import BlobResolver


class HostedImageNodes:
    """The four activities over the configured task-based providers (by `preferredModel`)."""

    def __init__(self, providers: HostedProviders, resolver: BlobResolver) -> None:
        self._providers = providers
        self._resolver = resolver

    @hosted.SUBMIT.defn
    async def submit(self, request: ExecutorRequest) -> SubmittedTask:
        provider = self._providers.for_model(request.preferred_model)
        asked = await image_request(request, self._resolver)
        try:
            return await provider.submit(asked)
        except ImageProviderError as err:
            raise provider_failure(err) from err

    @hosted.POLL.defn
    async def poll(self, request: PollRequest) -> TaskPoll:
        return await self._providers.poll(request)

    @hosted.FETCH.defn
    async def fetch(self, request: FetchRequest) -> ExecutionResult:
        provider = self._providers.named(request.task.provider)
        task_type = TASK_TYPE_FOR_ACTION.get(request.request.intent.action)
        if task_type is None:  # the submit refused it already; a fetch for it is a bug
            raise permanent(ErrorCode.EXECUTION_FAILED, f"无法执行的意图：{request.request.intent.action}")
        try:
            png = await provider.fetch(request.image_url)
        except ImageProviderError as err:
            raise provider_failure(err) from err
        size = await asyncio.to_thread(_size_of, png)  # the model's size, which may not be the one asked
        return await stored_result(png, request.request, task_type, size, provider.name, self._resolver.blobs)

    @hosted.CANCEL.defn
    async def cancel(self, request: PollRequest) -> Cancelled:
        return await self._providers.cancel(request)


def _size_of(png: bytes) -> tuple[int, int]:
    width, height = decode_image(png).size
    return width, height
