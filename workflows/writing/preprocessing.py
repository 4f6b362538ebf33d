"""Phase 1, the Preprocessing node: the plan's context tasks, one activity each, started together (Req 2).

Each task's timing is an event (`preprocessing_task`); a task that fails for good leaves a warning and an `error`
event (PREPROCESSING_TASK_FAILED, Req 1.5), and the run goes on with the other tasks' context (Req 2.5). The
merged `PreprocessingContext` is what the agents read.
"""

import asyncio

from temporalio import workflow

from workflows import policies
from workflows.common.run import NodeFailed
from workflows.writing.graph import PREPROCESSING, route_after_preprocessing
from workflows.writing.request import WritingRequest

with workflow.unsafe.imports_passed_through():
    from models.writing import nodes
    from models.writing.context import PreprocessingContext, PreprocessingTask, PreprocessPart, PreprocessRequest
    from models.writing.errors import WritingErrorCode
    from models.writing.events import PreprocessingStarted, TaskTiming
    from models.writing.run_messages import PreprocessingMessages, listed


class Preprocessing:
    """The preprocessing node."""

    def __init__(self, request: WritingRequest) -> None:
        self._request = request

    async def preprocessing(self) -> str:
        request = self._request
        plan = request.plan()
        english = request.english()
        names = listed([task.value for task in plan.tasks], english)
        started = PreprocessingStarted(
            workflow=plan.kind,
            tasks=list(plan.tasks),
            message=PreprocessingMessages.STARTED.say(english, names=names, count=len(plan.tasks)),
        )
        request.events.emit("workflow_preprocessing", PREPROCESSING, started)
        task_request = PreprocessRequest(
            owner=request.input.owner,
            project_id=request.input.project_id,
            text=request.task_text(),
            entity_names=[entity.text for entity in request.intent().entities],
        )
        parts = await asyncio.gather(*(self._preprocess(task, task_request) for task in plan.tasks))
        context = PreprocessingContext()
        for task, part in zip(plan.tasks, parts, strict=True):
            if part is None:
                context.warnings.append(f"{task.value} 预处理失败，继续使用其余上下文")
                continue
            for field in PreprocessingContext.model_fields:
                if field != "warnings" and (found := getattr(part.context, field)):
                    setattr(context, field, found)
        request.state.preprocessing_context = context
        return route_after_preprocessing(plan)

    async def _preprocess(self, task: PreprocessingTask, task_request: PreprocessRequest) -> PreprocessPart | None:
        """One task; a failure leaves a warning and the other tasks' context (Req 2.5)."""
        try:
            part = await self._request.run.call(
                nodes.PREPROCESSING[task],
                task_request,
                policies.WRITING_PREPROCESS,
                summary=f"preprocess: {task.value}",
            )
        except NodeFailed as err:
            english = self._request.english()
            warning = PreprocessingMessages.TASK_WARNING.say(english, task=task.value, cause=err.cause)[:300]
            self._timing(TaskTiming(task=task, status="failed", warning=warning))
            message = PreprocessingMessages.TASK_FAILED.say(english, task=task.value)
            self._request.degraded(PREPROCESSING, err, WritingErrorCode.PREPROCESSING_TASK_FAILED, message)
            return None
        self._timing(
            TaskTiming(
                task=task,
                status="ok",
                elapsed_ms=part.elapsed_ms,
                started_at=part.started_at,
                finished_at=part.finished_at,
                items=part.items,
            )
        )
        return part

    def _timing(self, timing: TaskTiming) -> None:
        self._request.state.task_timings.append(timing)
        self._request.events.emit("preprocessing_task", PREPROCESSING, timing)
