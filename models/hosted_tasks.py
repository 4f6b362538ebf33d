"""A task at an outside service that finishes later (an image API's generation, 5–60 s): what a submit returns,
what each poll sees, and the poll and cancel requests. Generic: any family's workflow drives such a task with
`workflows.common.hosted_task`; a family adds its own submit and result activities."""

from typing import Literal

from models.base import CamelModel

TaskStatus = Literal["pending", "running", "succeeded", "failed", "canceled"]


class SubmittedTask(CamelModel):
    """A task the service accepted; its id is in the run's history from then on, so a worker that dies while the
    task runs resumes polling it and never submits it again."""

    provider: str
    task_id: str


class TaskPoll(CamelModel):
    """One look at a task: its status, the result's URL once it succeeded (such URLs expire: collect it at once),
    and the service's code and message when it failed."""

    status: TaskStatus
    image_url: str | None = None
    code: str = ""
    message: str = ""


class PollRequest(CamelModel):
    """Poll (or cancel) one task."""

    task: SubmittedTask
    attempt: int = 1


class Cancelled(CamelModel):
    """Whether the service cancelled the task (DashScope cancels only a task that has not started)."""

    cancelled: bool
