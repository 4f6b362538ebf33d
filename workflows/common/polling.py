"""Waiting for work done elsewhere, the Temporal way: a durable timer, then one short poll (an activity), until
the work is done or the schedule's total wait is spent (`workflows.policies.PollSchedule`). No worker is busy
while the workflow waits, and a worker that dies resumes the schedule where the history stopped."""

from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import workflow

from workflows.policies import PollSchedule

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
