"""ImageAgentWorkflow: one turn of the AiVista image agent as a durable state machine (seeds 000, 004).

ValidateInput → Planner → RAG (only with a style) → Executor → Critic → GenUI, with the Critic's regeneration
loop back to RAG and an ErrorHandler. This module declares the nodes; `workflows.common.run.GraphRun` walks
them (deadline, cancellation, recorded transitions, the terminal `stream_end`), and every activity's options
come from `workflows.policies`. A turn queued behind others in its session emits `queued` and waits for the
session's `begin` before its 60 s start; every run that a session started reports how it ended to that session.
"""

import asyncio
import zlib
from contextlib import suppress
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

from workflows import policies
from workflows.common.event_log import EventLog
from workflows.common.graph import START
from workflows.common.hosted_task import HostedTask
from workflows.common.run import GraphRun, NodeFailed, run_activity
from workflows.image.graph import (
    CRITIC,
    ERROR_HANDLER,
    EXECUTOR,
    GENUI,
    GRAPH,
    MIN_CONFIDENCE,
    PLANNER,
    RAG,
    VALIDATE_INPUT,
    route_after_critic,
    route_after_planner,
    routing_error,
)
from workflows.image.ui import action_panel, error_message, result_message, smart_canvas

with workflow.unsafe.imports_passed_through():
    from models.blobs import ImageRef
    from models.errors import ErrorCode, ErrorInfo
    from models.events import RunStatus
    from models.hosted_tasks import TaskPoll
    from models.image import hosted, nodes
    from models.image.events import IMAGE_EVENTS, Progress, Queued, ThoughtLog
    from models.image.genui import GenUIComponent
    from models.image.hosted import SYNCHRONOUS_MODELS, FetchRequest
    from models.image.nodes import CriticRequest, ExecutorRequest, PlannerRequest, RagRequest, ValidateRequest
    from models.image.runs import (
        LOOK_UP_SESSION,
        REPORT_TURN,
        ImageAgentInput,
        ImageTurnResult,
        SessionLookup,
        TurnContext,
        TurnEnd,
        TurnReport,
    )
    from models.image.state import (
        TASK_TYPE_FOR_ACTION,
        EnhancedPrompt,
        ExecutionResult,
        ImageAgentMetadata,
        ImageAgentState,
        ImageParameters,
        Intent,
        PreviousResult,
        QualityCheck,
    )
    from models.search_attributes import INTENT_ACTION


@workflow.defn
class ImageAgentWorkflow:
    """One image-agent turn: its state is queryable as `state`, its events stream until `stream_end`."""

    @workflow.init
    def __init__(self, input: ImageAgentInput) -> None:
        self._input = input
        self._context = input.context
        self._state = ImageAgentState(
            messages=input.context.messages if input.context else [],
            user_input=input.user_input,
            metadata=ImageAgentMetadata(session_id=input.session_id, current_node=START, start_time=workflow.now()),
        )
        self._events = EventLog(IMAGE_EVENTS)
        self._run = GraphRun(GRAPH, self._events, self._state, error_node=ERROR_HANDLER)
        self._retrieved: tuple[RagRequest, EnhancedPrompt] | None = None
        self._critic_uses_llm = input.llm_configured
        self._session_watch: asyncio.Task[None] | None = None
        self._session_gone = False
        self._hosted = HostedTask(
            self._run,
            poll=(hosted.POLL, policies.IMAGE_POLL),
            cancel=(hosted.CANCEL, policies.IMAGE_CANCEL),
            schedule=policies.IMAGE_TASK_POLL,
        )

    @workflow.query(name="state")
    def state(self) -> ImageAgentState:
        return self._state

    @workflow.signal
    def begin(self, context: TurnContext) -> None:
        """The session's go-ahead for a queued turn, with the context as of now."""
        self._context = context
        self._state.messages = context.messages
        if self._session_watch is not None:
            self._session_watch.cancel()

    @workflow.run
    async def run(self, input: ImageAgentInput) -> ImageTurnResult:
        if self._context is None:
            waiting = f"前面还有 {input.position} 个请求，排队中..."
            self._events.emit("queued", START, Queued(position=input.position, message=waiting))
            if input.session_workflow_id is not None:
                self._session_watch = asyncio.create_task(self._watch_session(input.session_workflow_id))
        try:
            status = await self._execute(input)
        except asyncio.CancelledError:
            await self._report(TurnEnd(run_id=workflow.info().workflow_id, failure="任务已取消"))
            raise
        result = self._turn_result(status)
        await self._report(TurnEnd(run_id=workflow.info().workflow_id, result=result))
        return result

    async def _execute(self, input: ImageAgentInput) -> RunStatus:
        return await self._run.execute(
            {
                VALIDATE_INPUT: self._validate_input,
                PLANNER: self._planner,
                RAG: self._rag,
                EXECUTOR: self._executor,
                CRITIC: self._critic,
                GENUI: self._genui,
                ERROR_HANDLER: self._error_handler,
            },
            first=VALIDATE_INPUT,
            deadline=timedelta(seconds=input.deadline_seconds),
            ready=lambda: self._context is not None or self._session_gone,
        )

    async def _watch_session(self, session_workflow_id: str) -> None:
        """While queued: every few minutes, check that the session that would let this run begin is still there.
        A session an operator terminated never sends `begin`; the run then ends with SESSION_ENDED."""
        lookup = SessionLookup(session_workflow_id=session_workflow_id)
        while not self._session_gone:
            await workflow.sleep(policies.IMAGE_QUEUED_SESSION_CHECK)
            looked = await run_activity(
                LOOK_UP_SESSION, lookup, policies.IMAGE_LOOK_UP_SESSION, summary="is the session still there"
            )
            self._session_gone = not looked.open

    async def _report(self, end: TurnEnd) -> None:
        """Tell the session how this run ended (after the terminal event: a report that fails for good changes
        nothing the user sees, and the session looks a silent run up)."""
        if self._input.session_workflow_id is None:
            return
        report = TurnReport(session_workflow_id=self._input.session_workflow_id, end=end)
        with suppress(ActivityError):
            await run_activity(REPORT_TURN, report, policies.IMAGE_REPORT_TURN, summary="report to the session")

    # ---- nodes: each returns the next node ----

    async def _validate_input(self) -> str:
        if self._context is None:  # queued, and its session is gone: it never gets its turn
            message = "会话已结束，排队中的请求未执行（session ended）"
            return self._run.fail_with(ErrorInfo(code=ErrorCode.SESSION_ENDED, message=message, node=VALIDATE_INPUT))
        try:
            validated = await self._run.call(
                nodes.VALIDATE_INPUT,
                ValidateRequest(user_input=self._state.user_input),
                policies.IMAGE_VALIDATE_INPUT,
                summary="validate text and image URL",
            )
        except NodeFailed as err:
            return self._run.fail(err, ErrorCode.INVALID_INPUT_EMPTY)
        self._state.user_input = validated.user_input
        for warning in validated.warnings:
            self._thought(VALIDATE_INPUT, warning.message, code=warning.code, level="warning")
        return PLANNER

    async def _planner(self) -> str:
        user_input = self._state.user_input
        self._thought(PLANNER, "正在分析意图...")
        if user_input.mask_data is not None:
            self._thought(PLANNER, "检测到蒙版数据，意图将设为局部重绘")
        request = PlannerRequest(
            text=user_input.text,
            has_mask=user_input.mask_data is not None,
            messages=self._state.messages,
            previous=self._previous(),
            use_llm=self._input.llm_configured,
        )
        try:
            intent = await self._plan(request)
        except NodeFailed as err:
            if not request.use_llm:
                return self._run.fail(err, ErrorCode.PLANNER_FAILED)
            self._thought(PLANNER, "LLM 调用失败，降级为关键词匹配")
            try:
                intent = await self._plan(request.model_copy(update={"use_llm": False}))
            except NodeFailed as err:
                return self._run.fail(err, ErrorCode.PLANNER_FAILED)
        if intent.confidence < MIN_CONFIDENCE:
            intent = intent.model_copy(update={"action": "unknown"})
        self._state.intent = intent
        self._run.tag(INTENT_ACTION.value_set(intent.action))
        self._thought(PLANNER, f"已识别意图：{intent.action}，置信度：{intent.confidence:.2f}", intent=intent.action)
        problem = routing_error(intent, self._state, self._base_image() is not None)
        if problem is not None:
            code, message = problem
            return self._run.fail_with(ErrorInfo(code=code, message=message, node=PLANNER))
        return route_after_planner(intent)

    async def _plan(self, request: PlannerRequest) -> Intent:
        if request.use_llm:
            return await self._run.call(nodes.PLANNER, request, policies.IMAGE_PLANNER, summary="parse intent (LLM)")
        options = policies.IMAGE_PLANNER_KEYWORDS
        return await self._run.call(nodes.PLANNER, request, options, summary="parse intent (keywords)")

    async def _rag(self) -> str:
        intent = self._require_intent()
        original = intent.prompt or self._state.user_input.text
        if not (intent.style and intent.style.strip()):
            self._state.enhanced_prompt = EnhancedPrompt(original=original, final=original)
            self._thought(RAG, "没有风格关键词，跳过检索，使用原始 Prompt")
            return EXECUTOR
        request = RagRequest(original=original, style=intent.style, subject=intent.subject)
        if self._retrieved is not None and self._retrieved[0] == request:
            self._state.enhanced_prompt = self._retrieved[1]
            self._thought(RAG, "重新生成：复用本轮已检索到的风格（seed 004 §10.2 缓存）")
            return EXECUTOR
        self._thought(RAG, f"正在检索风格库：{intent.style}...")
        try:
            enhanced = await self._run.call(
                nodes.RAG, request, policies.IMAGE_RAG, summary=f"retrieve styles for {intent.style!r}"
            )
        except NodeFailed:
            enhanced = EnhancedPrompt(original=original, final=original)
            self._thought(RAG, "风格检索失败，使用原始 Prompt 继续", level="warning")
        else:
            self._retrieved = (request, enhanced)
            if enhanced.retrieved:
                names = "、".join(r.style for r in enhanced.retrieved)
                self._thought(RAG, f"检索到 {len(enhanced.retrieved)} 条相关风格：{names}")
            else:
                self._thought(RAG, "未检索到匹配的风格，使用原始 Prompt")
        self._state.enhanced_prompt = enhanced
        return EXECUTOR

    async def _executor(self) -> str:
        intent = self._require_intent()
        task = TASK_TYPE_FOR_ACTION.get(intent.action, intent.action)
        self._thought(EXECUTOR, f"开始执行任务：{task}...")
        self._events.emit("progress", EXECUTOR, Progress(node=EXECUTOR, message="生成中...", percent=10))
        prompt = self._final_prompt(intent)
        request = ExecutorRequest(
            session_id=self._state.metadata.session_id,
            intent=intent,
            prompt=prompt,
            seed=self._seed(prompt),
            parameters=self._parameters(intent),
            mask=self._state.user_input.mask_data,
            base_image=self._base_image() if intent.action != "generate_image" else None,
            preferred_model=self._state.user_input.preferred_model,
        )
        model = self._hosted_model()
        if model is not None and model in self._input.direct_models:
            direct = request.model_copy(update={"preferred_model": model})
            try:
                result = await self._run.call(
                    hosted.DIRECT_EXECUTOR, direct, policies.IMAGE_HOSTED_EXECUTOR, summary=f"{task} on {model}"
                )
            except NodeFailed as err:
                return self._run.fail(err, ErrorCode.EXECUTION_FAILED)
        elif model is not None:
            hosted_result = await self._hosted_executor(request.model_copy(update={"preferred_model": model}))
            if isinstance(hosted_result, str):
                return hosted_result
            result = hosted_result
        else:
            size = f"{request.parameters.width}x{request.parameters.height}"
            try:
                result = await self._run.call(
                    nodes.EXECUTOR, request, policies.IMAGE_EXECUTOR, summary=f"{task} {size}"
                )
            except NodeFailed as err:
                return self._run.fail(err, ErrorCode.EXECUTION_FAILED)
        self._state.execution_result = result
        self._show(EXECUTOR, smart_canvas(result))
        self._events.emit("progress", EXECUTOR, Progress(node=EXECUTOR, message="生成完成", percent=100))
        self._thought(EXECUTOR, "任务执行完成")
        return CRITIC

    async def _critic(self) -> str:
        intent = self._require_intent()
        result = self._state.execution_result
        assert result is not None, "the Critic runs only after a successful Executor"
        self._thought(CRITIC, "开始质量审查...")
        request = CriticRequest(
            intent=intent,
            prompt=result.prompt,
            result=result,
            mask=self._state.user_input.mask_data,
            base_image=self._base_image() if intent.action == "inpainting" else None,
            use_llm=self._critic_uses_llm,
        )
        options = policies.IMAGE_CRITIC if request.use_llm else policies.IMAGE_CRITIC_CHECKS
        try:
            check = await self._run.call(nodes.CRITIC, request, options, summary=f"check {result.task_type} image")
        except NodeFailed:
            check = QualityCheck(
                passed=True, score=0.7, degraded=True, feedback="质量审查失败，按通过处理（seed 000 §3.4 降级）"
            )
            self._thought(CRITIC, "质量审查失败，默认通过", level="warning")
        if check.llm_review_failed:
            self._critic_uses_llm = False
        self._state.quality_check = check
        verdict = "通过" if check.passed else "未通过"
        self._thought(CRITIC, f"审查完成，评分：{round(check.score * 100)}/100，{verdict}", score=check.score)
        next_node = route_after_critic(self._state)
        if next_node == RAG:
            self._state.metadata.retry_count += 1
            self._thought(
                CRITIC,
                f"质量不足，重新生成（第 {self._state.metadata.retry_count} 次）：{'；'.join(check.suggestions)}",
            )
        return next_node

    async def _genui(self) -> str:
        self._show(GENUI, action_panel(self._state))
        self._show(GENUI, result_message(self._state))
        return GRAPH.end

    # ---- a hosted model: submit, poll on the workflow clock, fetch ----

    def _hosted_model(self) -> str | None:
        """The hosted model this turn's image comes from: the user's `preferredModel` when a configured provider
        serves it, else the deployment's default model (None: the local renderer)."""
        preferred = self._state.user_input.preferred_model
        if preferred is not None and preferred in self._input.hosted_models:
            return preferred
        if preferred is not None:
            return None  # a model no configured API serves renders locally, whatever the default
        return self._input.default_model

    async def _hosted_executor(self, request: ExecutorRequest) -> ExecutionResult | str:
        """The Executor with a task-based image API: the result, or the next node when the run ends otherwise."""
        model = request.preferred_model
        submit = policies.IMAGE_HOSTED_EXECUTOR if model in SYNCHRONOUS_MODELS else policies.IMAGE_SUBMIT
        try:
            task = await self._run.call(hosted.SUBMIT, request, submit, summary=f"submit to {model}")
        except NodeFailed as err:
            allowed = self._state.user_input.allow_fallback
            if err.code == ErrorCode.IMAGE_QUOTA_EXHAUSTED and (
                self._input.allow_fallback if allowed is None else allowed
            ):
                self._thought(EXECUTOR, f"{model} 的额度已用完：改用本地渲染", level="warning", code=err.code)
                local = request.model_copy(update={"preferred_model": None})
                try:
                    return await self._run.call(
                        nodes.EXECUTOR, local, policies.IMAGE_EXECUTOR, summary="local fallback"
                    )
                except NodeFailed as local_err:
                    return self._run.fail(local_err, ErrorCode.EXECUTION_FAILED)
            return self._run.fail(err, ErrorCode.EXECUTION_FAILED)
        self._thought(EXECUTOR, f"已提交 {task.provider} 任务 {task.task_id}（{model}），等待生成...")

        def progress(seen: TaskPoll, attempt: int) -> None:
            percent = min(90, 10 + 10 * attempt)
            self._events.emit("progress", EXECUTOR, Progress(node=EXECUTOR, message=seen.status, percent=percent))

        try:
            done = await self._hosted.wait(task, progress)
            if done is None or done.image_url is None:  # the wait is spent: the task was cancelled
                waited = self._hosted.schedule.total.total_seconds()
                message = f"{model} 的任务 {task.task_id} 在 {waited:g} 秒内没有完成"
                return self._run.fail_with(ErrorInfo(code=ErrorCode.IMAGE_TASK_TIMEOUT, message=message, node=EXECUTOR))
            fetched = FetchRequest(task=task, image_url=done.image_url, request=request)
            result = await self._run.call(hosted.FETCH, fetched, policies.IMAGE_FETCH, summary="copy the image")
        except NodeFailed as err:
            return self._run.fail(err, ErrorCode.EXECUTION_FAILED)
        self._hosted.collected()
        return result

    async def _error_handler(self) -> str:
        task = self._hosted.task
        if task is not None and await self._hosted.cancel():
            self._thought(ERROR_HANDLER, f"已取消 {task.provider} 任务 {task.task_id}")
        error = self._state.error or ErrorInfo(code=ErrorCode.UNKNOWN_ERROR, message="未知错误", node="unknown")
        self._events.emit("error", ERROR_HANDLER, error)
        self._show(ERROR_HANDLER, error_message(error))
        return GRAPH.end

    # ---- helpers ----

    def _thought(
        self,
        node: str,
        message: str,
        *,
        level: str | None = None,
        code: str | None = None,
        intent: str | None = None,
        score: float | None = None,
    ) -> None:
        thought = ThoughtLog.model_validate(
            {"node": node, "message": message, "level": level, "code": code, "intent": intent, "score": score}
        )
        self._events.emit("thought_log", node, thought)

    def _show(self, node: str, component: GenUIComponent) -> None:
        ui = self._state.ui_components
        if component.id is not None:
            ui[:] = [c for c in ui if c.id != component.id]
        ui.append(component)
        self._events.emit("gen_ui_component", node, component)

    def _turn_result(self, status: RunStatus) -> ImageTurnResult:
        state = self._state
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

    def _previous(self) -> PreviousResult | None:
        return self._context.previous if self._context else None

    def _require_intent(self) -> Intent:
        assert self._state.intent is not None, "the Planner sets the intent before later nodes run"
        return self._state.intent

    def _final_prompt(self, intent: Intent) -> str:
        if self._state.enhanced_prompt is not None:
            return self._state.enhanced_prompt.final
        return intent.prompt or self._state.user_input.text

    def _seed(self, prompt: str) -> int:
        """The same prompt gives the same image; each regeneration moves to the next seed."""
        previous = self._previous()
        base = previous.seed if previous and self._require_intent().action == "adjust_parameters" else None
        if base is None:
            base = zlib.crc32(prompt.encode("utf-8"))
        return (base + self._state.metadata.retry_count) % 2**31

    def _parameters(self, intent: Intent) -> ImageParameters:
        previous = self._previous()
        params = ImageParameters()
        if previous is not None and intent.action != "generate_image":
            params = ImageParameters(
                width=previous.width, height=previous.height, style_strength=previous.style_strength
            )
        known = {k: v for k, v in intent.parameters.items() if k in ("width", "height", "style_strength")}
        return params.model_copy(update=known)

    def _base_image(self) -> ImageRef | None:
        """The image an edit starts from: the one the mask was drawn on, else the session's last image."""
        mask = self._state.user_input.mask_data
        if mask is not None and mask.image is not None:
            return mask.image
        previous = self._previous()
        return ImageRef(blob_key=previous.blob_key) if previous else None
