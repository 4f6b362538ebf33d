"""The task-based image API interface (`SubmittedTask` and `TaskPoll` are in `models.hosted_tasks`: the
workflow reads them too)."""

from typing import Protocol

from activities.image.image_provider import ImageRequest
from models.hosted_tasks import SubmittedTask, TaskPoll


class HostedImageProvider(Protocol):
    """An image API that works by task: each method is one short HTTP call (one activity each)."""

    name: str

    def supports(self, model: str) -> bool:
        """Whether this provider serves `preferredModel` = `model`."""
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
