"""The image agent's hosted-model activities (issue 13): submit, poll, fetch and cancel for a task-based image API
(DashScope: a task finishes 5–60 s later; the generic task models are `models.hosted_tasks`), and the direct
Executor of a synchronous one (OpenAI Images)."""

from models.base import CamelModel
from models.hosted_tasks import Cancelled, PollRequest, SubmittedTask, TaskPoll
from models.image.nodes import ExecutorRequest
from models.image.state import ExecutionResult
from models.nodes import ActivitySpec

SYNCHRONOUS_MODELS = frozenset({"qwen-image-max", "z-image-turbo"})
"""Hosted models whose API answers the submit with the finished image (DashScope serves them only
synchronously): their submit may take as long as the generation, so it runs with `IMAGE_HOSTED_EXECUTOR`."""


class FetchRequest(CamelModel):
    """Copy a finished task's image into the blob store, as the Executor's result for `request`."""

    task: SubmittedTask
    image_url: str
    request: ExecutorRequest


DIRECT_EXECUTOR = ActivitySpec("image.direct_executor", ExecutorRequest, ExecutionResult)
"""A hosted model of a synchronous API (OpenAI Images): the Executor in one call, with a longer timeout."""
SUBMIT = ActivitySpec("image.submit", ExecutorRequest, SubmittedTask)
"""A hosted model's Executor, first step: create the provider's task."""
POLL = ActivitySpec("image.poll", PollRequest, TaskPoll)
FETCH = ActivitySpec("image.fetch", FetchRequest, ExecutionResult)
CANCEL = ActivitySpec("image.cancel", PollRequest, Cancelled)
