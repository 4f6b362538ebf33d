"""How the content run draws the image of one `generate_image` call (issue 13). On the local renderer or a
synchronous image API: one activity, `content.image_tool`. On a task-based image API (DashScope's qwen-image):
`content.image_submit`, then the polls (`content.image_poll`) on durable timers of
`workflows.common.hosted_task`, then `content.image_fetch`, which copies the image into the blob store. The
model is the run's `imageGenProvider` when this deployment serves it, else the local renderer (and the run says
so once).

A provider's refusal is not a crash of the loop: the call's result is an error the image agent reads, and the user
gets an `error` event with the provider's code. A prompt its moderation refused is not submitted again; a spent
quota falls back to the local renderer when the run allows it; tasks still running when the run leaves through its
error path (its deadline, a cancel) are cancelled at the provider."""

from collections.abc import Awaitable, Callable
from typing import Any

from temporalio import workflow

from workflows import policies
from workflows.common.hosted_task import HostedTask
from workflows.common.run import GraphRun, NodeFailed

with workflow.unsafe.imports_passed_through():
    from models.content import nodes
    from models.content.agents import AgentName
    from models.content.runs import ContentRunInput
    from models.content.turns import HostedImageFetch, ToolCallRequest, ToolCallResult, planned_image
    from models.errors import ErrorCode, ErrorInfo
    from models.hosted_tasks import SubmittedTask
    from models.image.hosted import SYNCHRONOUS_MODELS

NodeCall = Callable[..., Awaitable[Any]]
"""The workflow's activity call: `(spec, request, options, *, summary) -> result` (it counts the calls)."""
Say = Callable[[str, str], None]
"""A line for the run's timeline: `(message, level)`."""
AGENT = AgentName.IMAGE
Planned = tuple[str, str]
"""A `generate_image` call's plan id and prompt."""


class ContentImages:
    """The image tool calls of one content run, on the model it was given."""

    def __init__(
        self, run_input: ContentRunInput, run: GraphRun, call: NodeCall, say: Say, report: Callable[[ErrorInfo], object]
    ) -> None:
        self._run = run
        self._call = call
        self._say = say
        self._report = report
        self._allow_fallback = run_input.allow_fallback
        provider = run_input.image_gen_provider
        served = provider in run_input.hosted_models or provider in run_input.direct_models
        self.model = provider if served else None
        """The hosted model that draws this run's images; None: the local renderer."""
        self._task_based = provider in run_input.hosted_models
        self._unserved = provider if provider != "local" and not served else None
        self._waiting: list[HostedTask] = []
        self._refused: set[tuple[str, str]] = set()
        """(plan, prompt) pairs the provider's moderation refused."""

    async def generate(self, request: ToolCallRequest, summary: str) -> ToolCallResult:
        """One `generate_image` call's result; raises `NodeFailed` when its activities failed for good."""
        if self._unserved is not None:
            self._say(f"这个部署没有配置 {self._unserved} 的图片服务：配图用本地渲染", "warning")
            self._unserved = None
        known = planned_image(request)
        if self.model is None or known is None:  # the local renderer; or a call the tool answers with an error
            return await self._tool(request, None, summary)
        if not self._task_based:
            return await self._tool(request, self.model, summary)
        planned = (known[0].plan_id, known[1])
        return await self._hosted(request.model_copy(update={"model": self.model}), planned, summary)

    async def cancel_waiting(self) -> list[str]:
        """Cancel the provider tasks still waited for (the run is leaving); the ids the provider cancelled."""
        cancelled = []
        for waiting in self._waiting:
            task = waiting.task
            if task is not None and await waiting.cancel():
                cancelled.append(task.task_id)
        self._waiting.clear()
        return cancelled

    async def _tool(self, request: ToolCallRequest, model: str | None, summary: str) -> ToolCallResult:
        options = policies.IMAGE_TOOL if model is None else policies.IMAGE_HOSTED_EXECUTOR
        result: ToolCallResult = await self._call(
            nodes.IMAGE_TOOL, request.model_copy(update={"model": model}), options, summary=summary
        )
        return result

    async def _hosted(self, request: ToolCallRequest, planned: Planned, summary: str) -> ToolCallResult:
        plan_id, model = planned[0], self.model
        if planned in self._refused:
            message = f"{plan_id} 的提示词已被 {model} 的内容审核拒绝：请改写 prompt 后再生成"
            return _error_result(request, message)
        submit = policies.IMAGE_HOSTED_EXECUTOR if model in SYNCHRONOUS_MODELS else policies.IMAGE_SUBMIT
        try:
            task = await self._call(nodes.IMAGE_SUBMIT, request, submit, summary=f"{summary}: submit to {model}")
        except NodeFailed as err:
            if err.code == ErrorCode.IMAGE_QUOTA_EXHAUSTED and self._allow_fallback:
                self._say(f"{model} 的额度已用完：{plan_id} 改用本地渲染", "warning")
                return await self._tool(request, None, f"{summary} (local fallback)")
            raise self._failed(err, planned) from err
        self._say(f"已提交 {task.provider} 任务 {task.task_id}（{plan_id}，{model}），等待生成", "info")
        waiting = HostedTask(
            self._run,
            poll=(nodes.IMAGE_POLL, policies.IMAGE_POLL),
            cancel=(nodes.IMAGE_CANCEL, policies.IMAGE_CANCEL),
            schedule=policies.IMAGE_TASK_POLL,
        )
        self._waiting.append(waiting)
        try:
            result = await self._collect(waiting, request, task, planned, summary)
        except NodeFailed as err:
            self._settled(waiting)
            raise self._failed(err, planned) from err
        self._settled(waiting)  # not when the run is cancelled meanwhile: then its error path cancels the task
        return result

    async def _collect(
        self, waiting: HostedTask, request: ToolCallRequest, task: SubmittedTask, planned: Planned, summary: str
    ) -> ToolCallResult:
        """Wait for the task by the schedule, then copy its image; an error result when the wait is spent."""
        plan_id, model = planned[0], self.model
        done = await waiting.wait(task)
        if done is None or done.image_url is None:  # the wait is spent: the task was cancelled
            waited = waiting.schedule.total.total_seconds()
            message = f"{model} 的任务 {task.task_id}（{plan_id}）在 {waited:g} 秒内没有完成"
            self._report(ErrorInfo(code=ErrorCode.IMAGE_TASK_TIMEOUT, message=message, node=AGENT))
            return _error_result(request, message)
        fetch = HostedImageFetch(call=request, task=task, image_url=done.image_url)
        result: ToolCallResult = await self._call(
            nodes.IMAGE_FETCH, fetch, policies.IMAGE_FETCH, summary=f"{summary}: copy the image"
        )
        return result

    def _settled(self, waiting: HostedTask) -> None:
        """The task is collected, failed or cancelled: nothing left to cancel for it."""
        waiting.collected()
        if waiting in self._waiting:
            self._waiting.remove(waiting)

    def _failed(self, err: NodeFailed, planned: Planned) -> NodeFailed:
        """A hosted step that failed for good: the user hears why; a refused prompt is remembered."""
        self._report(err.error_info(AGENT, ErrorCode.EXECUTION_FAILED))
        if err.code == ErrorCode.IMAGE_CONTENT_REFUSED:
            self._refused.add(planned)
        return err


def _error_result(request: ToolCallRequest, message: str) -> ToolCallResult:
    call = request.call
    return ToolCallResult(call_id=call.id, name=call.name, content=message, is_error=True, summary=message)
