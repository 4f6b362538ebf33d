"""The Executor node: the image itself, from the local renderer or a hosted model (seed 000 §3.3, 004 §5).

Which renderer: the user's `preferredModel` when a configured provider serves it, else the deployment's default
model, else the local renderer. A model served directly answers in one activity; a task-based image API is
submitted, polled on the workflow clock (`workflows.common.hosted_task.HostedTask`) and its image copied into the
blob store. A quota that is spent falls back to the local renderer when the user (or the deployment) allows it.
The same prompt gives the same image; each regeneration moves to the next seed. As the Executor starts, the Critic
is asked to start its LLM review of the prompt (`Review.begin`), which needs the prompt and not the image.
"""

import zlib

from temporalio import workflow

from workflows import policies
from workflows.common.hosted_task import HostedTask
from workflows.common.run import NodeFailed, RunFailed
from workflows.image.graph import CRITIC, EXECUTOR
from workflows.image.review import Review
from workflows.image.turn import ImageTurn
from workflows.image.ui import smart_canvas

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode, ErrorInfo
    from models.hosted_tasks import TaskPoll
    from models.image import hosted, nodes
    from models.image.events import Progress
    from models.image.hosted import SYNCHRONOUS_MODELS, FetchRequest
    from models.image.nodes import ExecutorRequest
    from models.image.state import TASK_TYPE_FOR_ACTION, ExecutionResult, ImageParameters, Intent


class Execution:
    """The Executor node and the hosted task it may wait for (the error handler cancels one left behind)."""

    def __init__(self, turn: ImageTurn, hosted_task: HostedTask, review: Review) -> None:
        self._turn = turn
        self._hosted = hosted_task
        self._review = review

    async def executor(self) -> str:
        turn = self._turn
        intent = turn.intent()
        task = TASK_TYPE_FOR_ACTION.get(intent.action, intent.action)
        turn.thought(EXECUTOR, f"开始执行任务：{task}...")
        turn.events.emit("progress", EXECUTOR, Progress(node=EXECUTOR, message="生成中...", percent=10))
        prompt = self._final_prompt(intent)
        request = ExecutorRequest(
            session_id=turn.state.metadata.session_id,
            intent=intent,
            prompt=prompt,
            seed=self._seed(prompt),
            parameters=self._parameters(intent),
            mask=turn.state.user_input.mask_data,
            base_image=turn.base_image() if intent.action != "generate_image" else None,
            preferred_model=turn.state.user_input.preferred_model,
            owner=turn.input.owner,
        )
        self._review.begin(intent, prompt)
        try:
            result = await self._execute(request, task)
        except BaseException:
            self._review.cancel()
            raise
        turn.state.execution_result = result
        turn.show(EXECUTOR, smart_canvas(result))
        turn.events.emit("progress", EXECUTOR, Progress(node=EXECUTOR, message="生成完成", percent=100))
        turn.thought(EXECUTOR, "任务执行完成")
        return CRITIC

    async def _execute(self, request: ExecutorRequest, task: str) -> ExecutionResult:
        """The image, from a directly served model, a task-based image API or the local renderer."""
        turn = self._turn
        model = self._hosted_model()
        if model is not None and model in turn.input.direct_models:
            result = await turn.run.call_or_fail(
                hosted.DIRECT_EXECUTOR,
                request.model_copy(update={"preferred_model": model}),
                policies.IMAGE_HOSTED_EXECUTOR,
                summary=f"{task} on {model}",
                code=ErrorCode.EXECUTION_FAILED,
            )
        elif model is not None:
            result = await self._hosted_executor(request.model_copy(update={"preferred_model": model}))
        else:
            size = f"{request.parameters.width}x{request.parameters.height}"
            result = await turn.run.call_or_fail(
                nodes.EXECUTOR,
                request,
                policies.IMAGE_EXECUTOR,
                summary=f"{task} {size}",
                code=ErrorCode.EXECUTION_FAILED,
            )
        return result

    def _hosted_model(self) -> str | None:
        """The hosted model this turn's image comes from: the user's `preferredModel` when a configured provider
        serves it, else the deployment's default model (None: the local renderer)."""
        preferred = self._turn.state.user_input.preferred_model
        if preferred is not None and preferred in self._turn.input.hosted_models:
            return preferred
        if preferred is not None:
            return None  # a model no configured API serves renders locally, whatever the default
        return self._turn.input.default_model

    async def _hosted_executor(self, request: ExecutorRequest) -> ExecutionResult:
        """The Executor with a task-based image API: submit, poll on the workflow clock, fetch. Raises `RunFailed`
        when the run cannot go on."""
        turn = self._turn
        model = request.preferred_model
        submit = policies.IMAGE_HOSTED_EXECUTOR if model in SYNCHRONOUS_MODELS else policies.IMAGE_SUBMIT
        try:
            task = await turn.run.call(hosted.SUBMIT, request, submit, summary=f"submit to {model}")
        except NodeFailed as err:
            if err.code == ErrorCode.IMAGE_QUOTA_EXHAUSTED and self._may_fall_back():
                turn.thought(EXECUTOR, f"{model} 的额度已用完：改用本地渲染", level="warning", code=err.code)
                local = request.model_copy(update={"preferred_model": None})
                return await turn.run.call_or_fail(
                    nodes.EXECUTOR,
                    local,
                    policies.IMAGE_EXECUTOR,
                    summary="local fallback",
                    code=ErrorCode.EXECUTION_FAILED,
                )
            raise RunFailed(err.error_info(EXECUTOR, ErrorCode.EXECUTION_FAILED)) from err
        turn.thought(EXECUTOR, f"已提交 {task.provider} 任务 {task.task_id}（{model}），等待生成...")

        def progress(seen: TaskPoll, attempt: int) -> None:
            percent = min(90, 10 + 10 * attempt)
            turn.events.emit("progress", EXECUTOR, Progress(node=EXECUTOR, message=seen.status, percent=percent))

        try:
            done = await self._hosted.wait(task, progress)
        except NodeFailed as err:
            raise RunFailed(err.error_info(EXECUTOR, ErrorCode.EXECUTION_FAILED)) from err
        if done is None or done.image_url is None:  # the wait is spent: the task was cancelled
            waited = self._hosted.schedule.total.total_seconds()
            message = f"{model} 的任务 {task.task_id} 在 {waited:g} 秒内没有完成"
            raise RunFailed(ErrorInfo(code=ErrorCode.IMAGE_TASK_TIMEOUT, message=message, node=EXECUTOR))
        fetched = FetchRequest(task=task, image_url=done.image_url, request=request)
        result = await turn.run.call_or_fail(
            hosted.FETCH, fetched, policies.IMAGE_FETCH, summary="copy the image", code=ErrorCode.EXECUTION_FAILED
        )
        self._hosted.collected()
        return result

    def _may_fall_back(self) -> bool:
        """Whether a spent quota may render locally: the user's `allowFallback`, else the deployment's."""
        allowed = self._turn.state.user_input.allow_fallback
        return self._turn.input.allow_fallback if allowed is None else allowed

    def _final_prompt(self, intent: Intent) -> str:
        if self._turn.state.enhanced_prompt is not None:
            return self._turn.state.enhanced_prompt.final
        return intent.prompt or self._turn.state.user_input.text

    def _seed(self, prompt: str) -> int:
        """The same prompt gives the same image; each regeneration moves to the next seed."""
        previous = self._turn.previous()
        base = previous.seed if previous and self._turn.intent().action == "adjust_parameters" else None
        if base is None:
            base = zlib.crc32(prompt.encode("utf-8"))
        return (base + self._turn.state.metadata.retry_count) % 2**31

    def _parameters(self, intent: Intent) -> ImageParameters:
        """The previous image's size and strength for an edit, then what the intent names."""
        previous = self._turn.previous()
        params = ImageParameters()
        if previous is not None and intent.action != "generate_image":
            params = ImageParameters(
                width=previous.width, height=previous.height, style_strength=previous.style_strength
            )
        known = {k: v for k, v in intent.parameters.items() if k in ("width", "height", "style_strength")}
        return params.model_copy(update=known)
