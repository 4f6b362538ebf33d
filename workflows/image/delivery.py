"""How an image turn ends for the user: the GenUI node's components, the ErrorHandler node, and the turn's result.

GenUI shows the action panel and the result message (`workflows.image.ui`). The ErrorHandler cancels a hosted task
the turn no longer waits for, emits the `error` event (`GraphRun.report_error`) and shows the error message.
`turn_result` is what the run returns to the session: the reply it remembers and the image a later turn can edit.
"""

from temporalio import workflow

from workflows.common.hosted_task import HostedTask
from workflows.image.graph import ERROR_HANDLER, GENUI, GRAPH
from workflows.image.turn import ImageTurn
from workflows.image.ui import action_panel, error_message, result_message

with workflow.unsafe.imports_passed_through():
    from models.events import RunStatus
    from models.image.runs import ImageTurnResult
    from models.image.state import ImageAgentState, PreviousResult


class Delivery:
    """The GenUI and ErrorHandler nodes."""

    def __init__(self, turn: ImageTurn, hosted_task: HostedTask) -> None:
        self._turn = turn
        self._hosted = hosted_task

    async def genui(self) -> str:
        self._turn.show(GENUI, action_panel(self._turn.state))
        self._turn.show(GENUI, result_message(self._turn.state))
        return GRAPH.end

    async def error_handler(self) -> str:
        turn = self._turn
        task = self._hosted.task
        if task is not None and await self._hosted.cancel():
            turn.thought(ERROR_HANDLER, f"已取消 {task.provider} 任务 {task.task_id}")
        error = turn.run.report_error(ERROR_HANDLER)
        turn.show(ERROR_HANDLER, error_message(error))
        return GRAPH.end


def turn_result(state: ImageAgentState, status: RunStatus) -> ImageTurnResult:
    """The run's result: its reply (the error's message when it failed) and the image it made, if any."""
    result = state.execution_result
    if state.error is not None:
        return ImageTurnResult(status=status, reply=state.error.message)
    if result is None:
        return ImageTurnResult(status=status, reply="已完成")
    intent = state.intent
    previous = PreviousResult(
        blob_key=result.blob_key,
        prompt=intent.prompt if intent and intent.prompt else result.prompt,
        subject=intent.subject if intent else None,
        style=intent.style if intent else None,
        width=result.width,
        height=result.height,
        style_strength=result.style_strength,
        seed=result.seed,
    )
    return ImageTurnResult(status=status, reply=f"上一次生成的结果：{result.image_url}", previous=previous)
