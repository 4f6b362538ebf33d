"""A hosted image task as the image agent's workflow sees it (issue 13): what a submit returns, what each poll
sees, and the submit, poll, fetch and cancel activities with their requests. Task-based image APIs (DashScope)
create a task and finish it 5–60 s later; the workflow waits on durable timers between polls, so no worker is
busy meanwhile."""

from typing import Literal

from models.base import CamelModel
from models.image.nodes import ExecutorRequest
from models.image.state import ExecutionResult
from models.nodes import ActivitySpec

TaskStatus = Literal["pending", "running", "succeeded", "failed", "canceled"]

SYNCHRONOUS_MODELS = frozenset({"qwen-image-max", "z-image-turbo"})
"""Hosted models whose API answers the submit with the finished image (DashScope serves them only
synchronously): their submit may take as long as the generation, so it runs with `IMAGE_HOSTED_EXECUTOR`."""


class SubmittedTask(CamelModel):
    """A task the provider accepted; its id is in the run's history from then on, so a worker that dies while the
    task runs resumes polling it and never submits it again."""

    provider: str
    task_id: str


class TaskPoll(CamelModel):
    """One look at a task: its status, the image's URL once it succeeded (provider URLs expire: it is fetched at
    once), and the provider's code and message when it failed."""

    status: TaskStatus
    image_url: str | None = None
    code: str = ""
    message: str = ""


class PollRequest(CamelModel):
    """Poll (or cancel) one task."""

    task: SubmittedTask
    attempt: int = 1


class FetchRequest(CamelModel):
    """Copy a finished task's image into the blob store, as the Executor's result for `request`."""

    task: SubmittedTask
    image_url: str
    request: ExecutorRequest


class Cancelled(CamelModel):
    """Whether the provider cancelled the task (only a task that has not started can be, on DashScope)."""

    cancelled: bool


DIRECT_EXECUTOR = ActivitySpec("image.direct_executor", ExecutorRequest, ExecutionResult)
"""A hosted model of a synchronous API (OpenAI Images): the Executor in one call, with a longer timeout."""
SUBMIT = ActivitySpec("image.submit", ExecutorRequest, SubmittedTask)
"""A hosted model's Executor, first step: create the provider's task."""
POLL = ActivitySpec("image.poll", PollRequest, TaskPoll)
FETCH = ActivitySpec("image.fetch", FetchRequest, ExecutionResult)
CANCEL = ActivitySpec("image.cancel", PollRequest, Cancelled)
