"""Waiting for a task at an outside service, the Temporal way (any family): after the family's own submit
activity, `HostedTask.wait` polls it, one short activity after each durable timer of the declared schedule
(`workflows.policies.PollSchedule`), until it succeeds or the schedule's total wait is spent; `cancel` cancels a
task the run no longer waits for (its deadline, a cancel, a timeout), where the service allows it. No worker is
busy while the workflow waits, and a worker that dies resumes the schedule where the history stopped, without a
second submit (the submit's result, with the task id, is in the history)."""

from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import workflow

from workflows.common.run import GraphRun, NodeFailed
from workflows.policies import NodeOptions, PollSchedule

with workflow.unsafe.imports_passed_through():
    from models.hosted_tasks import Cancelled, PollRequest, SubmittedTask, TaskPoll
    from models.nodes import ActivitySpec

PolledT = TypeVar("PolledT")


async def poll_until(
    poll: Callable[[int], Awaitable[PolledT]], done: Callable[[PolledT], bool], schedule: PollSchedule
) -> PolledT | None:
    """Wait, poll (`poll(attempt)`, 1-based), and again, until `done` holds for a poll's answer (returned); None
    when the total wait is spent first."""
    for attempt, wait in enumerate(schedule.waits(), start=1):
        await workflow.sleep(wait)
        answer = await poll(attempt)
        if done(answer):
            return answer
    return None


class HostedTask:
    """The task a run waits for, with the family's poll and cancel activities and their options."""

    def __init__(
        self,
        run: GraphRun,
        *,
        poll: tuple[ActivitySpec[PollRequest, TaskPoll], NodeOptions],
        cancel: tuple[ActivitySpec[PollRequest, Cancelled], NodeOptions],
        schedule: PollSchedule,
    ) -> None:
        self._run = run
        self._poll = poll
        self._cancel = cancel
        self.schedule = schedule
        self.task: SubmittedTask | None = None
        """The task submitted and not yet collected or cancelled."""

    async def wait(
        self, task: SubmittedTask, on_poll: Callable[[TaskPoll, int], None] = lambda seen, attempt: None
    ) -> TaskPoll | None:
        """Poll `task` by the schedule: its succeeded poll, or None (after cancelling it) when the wait is spent.
        A poll that fails for good raises `NodeFailed` (the task stays recorded, so the error path cancels it)."""
        self.task = task
        spec, options = self._poll

        async def poll(attempt: int) -> TaskPoll:
            request = PollRequest(task=task, attempt=attempt)
            seen = await self._run.call(spec, request, options, summary=f"poll {task.task_id} #{attempt}")
            on_poll(seen, attempt)
            return seen

        done = await poll_until(poll, lambda seen: seen.status == "succeeded", self.schedule)
        if done is None:
            await self.cancel()
        return done

    def collected(self) -> None:
        """The task's result is the run's: nothing is left to cancel."""
        self.task = None

    async def cancel(self) -> bool:
        """Cancel the task being waited for, if any (best effort); whether the service cancelled it."""
        task, self.task = self.task, None
        if task is None:
            return False
        spec, options = self._cancel
        try:
            answer = await self._run.call(spec, PollRequest(task=task), options, summary=f"cancel {task.task_id}")
        except NodeFailed:
            return False
        return answer.cancelled
