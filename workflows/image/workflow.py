"""ImageAgentWorkflow: one turn of the AiVista image agent as a durable state machine (seeds 000, 004).

ValidateInput → Planner → RAG (only with a style) → Executor → Critic → GenUI, with the Critic's regeneration
loop back to RAG and an ErrorHandler; every node is an activity with the options of `workflows.policies`.
The whole run is bounded by a workflow timer (60 s) that ends through the error path, so a client always sees
an `error` event and `stream_end`.
"""

import asyncio
import zlib
from datetime import timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError
from temporalio.exceptions import TimeoutError as NodeTimeoutError

from workflows import policies
from workflows.event_log import EventLog
from workflows.graph import END, START
from workflows.image_agent_graph import (
    CRITIC,
    ERROR_HANDLER,
    EXECUTOR,
    GENUI,
    MIN_CONFIDENCE,
    PLANNER,
    RAG,
    VALIDATE_INPUT,
    route_after_critic,
    route_after_planner,
    routing_error,
)
from workflows.image_agent_ui import action_panel, error_message, result_message, smart_canvas
from workflows.policies import NodeOptions
from workflows.search_attributes import INTENT_ACTION, RUN_STATUS

with workflow.unsafe.imports_passed_through():
    from models.agent import (
        TASK_TYPE_FOR_ACTION,
        AgentMetadata,
        AgentState,
        EnhancedPrompt,
        ErrorInfo,
        ExecutionResult,
        ImageParameters,
        Intent,
        QualityCheck,
    )
    from models.errors import ErrorCode
    from models.genui import GenUIComponent
    from models.nodes import (
        ActivityName,
        CriticRequest,
        ExecutorRequest,
        PlannerRequest,
        RagRequest,
        ValidatedInput,
        ValidateRequest,
    )
    from models.runs import ImageAgentInput

ResultT = TypeVar("ResultT")


@workflow.defn
class ImageAgentWorkflow:
    @workflow.init
    def __init__(self, input: ImageAgentInput) -> None:
        self._stream = WorkflowStream()
        self._events = EventLog(self._stream)
        self._input = input
        self._state = AgentState(
            messages=input.messages,
            user_input=input.user_input,
            metadata=AgentMetadata(session_id=input.session_id, current_node=START, start_time=workflow.now()),
        )

    @workflow.query(name="state")
    def state(self) -> AgentState:
        return self._state

    @workflow.run
    async def run(self, input: ImageAgentInput) -> AgentState:
        graph = asyncio.create_task(self._run_graph())
        try:
            await workflow.wait_condition(graph.done, timeout=timedelta(seconds=input.deadline_seconds))
        except TimeoutError:
            await self._abort(
                graph, ErrorCode.WORKFLOW_TIMEOUT, f"生成超时：单次任务最长 {input.deadline_seconds:g} 秒"
            )
            self._finish("timeout")
            return self._state
        except asyncio.CancelledError:
            await self._abort(graph, ErrorCode.CANCELLED, "任务已取消")
            self._finish("cancelled")
            raise
        graph.result()
        self._finish("failed" if self._state.error else "completed")
        return self._state

    async def _run_graph(self) -> None:
        nodes = {
            VALIDATE_INPUT: self._validate_input,
            PLANNER: self._planner,
            RAG: self._rag,
            EXECUTOR: self._executor,
            CRITIC: self._critic,
            GENUI: self._genui,
            ERROR_HANDLER: self._error_handler,
        }
        node = self._goto(VALIDATE_INPUT)
        while node != END:
            node = self._goto(await nodes[node]())

    # ---- nodes: each returns the next node ----

    async def _validate_input(self) -> str:
        try:
            validated = await self._execute(
                ActivityName.VALIDATE_INPUT,
                ValidateRequest(user_input=self._state.user_input),
                ValidatedInput,
                policies.VALIDATE_INPUT,
                "validate text, mask and image URL",
            )
        except ActivityError as err:
            return self._fail(err, ErrorCode.INVALID_INPUT_EMPTY)
        self._state.user_input = validated.user_input
        for warning in validated.warnings:
            self._events.thought(VALIDATE_INPUT, warning.message, code=warning.code, level="warning")
        return PLANNER

    async def _planner(self) -> str:
        user_input = self._state.user_input
        self._events.thought(PLANNER, "正在分析意图...")
        if user_input.mask_data is not None:
            self._events.thought(PLANNER, "检测到蒙版数据，意图将设为局部重绘")
        request = PlannerRequest(
            text=user_input.text,
            has_mask=user_input.mask_data is not None,
            messages=self._input.messages,
            previous=self._input.previous,
        )
        try:
            intent = await self._plan(request, "parse intent")
        except ActivityError:
            self._events.thought(PLANNER, "LLM 调用失败，降级为关键词匹配")
            try:
                intent = await self._plan(request.model_copy(update={"use_llm": False}), "keyword fallback")
            except ActivityError as err:
                return self._fail(err, ErrorCode.PLANNER_FAILED)
        if intent.confidence < MIN_CONFIDENCE:
            intent = intent.model_copy(update={"action": "unknown"})
        self._state.intent = intent
        workflow.upsert_search_attributes([INTENT_ACTION.value_set(intent.action)])
        self._events.thought(
            PLANNER, f"已识别意图：{intent.action}，置信度：{intent.confidence:.2f}", intent=intent.action
        )
        problem = routing_error(intent, self._state, self._base_image_url() is not None)
        if problem is not None:
            code, message = problem
            self._state.error = ErrorInfo(code=code, message=message, node=PLANNER)
            return ERROR_HANDLER
        return route_after_planner(intent)

    async def _plan(self, request: PlannerRequest, summary: str) -> Intent:
        return await self._execute(ActivityName.PLANNER, request, Intent, policies.PLANNER, summary)

    async def _rag(self) -> str:
        intent = self._require_intent()
        original = intent.prompt or self._state.user_input.text
        if not (intent.style and intent.style.strip()):
            self._state.enhanced_prompt = EnhancedPrompt(original=original, final=original)
            self._events.thought(RAG, "没有风格关键词，跳过检索，使用原始 Prompt")
            return EXECUTOR
        self._events.thought(RAG, f"正在检索风格库：{intent.style}...")
        try:
            enhanced = await self._execute(
                ActivityName.RAG,
                RagRequest(original=original, style=intent.style, subject=intent.subject),
                EnhancedPrompt,
                policies.RAG,
                f"retrieve styles for {intent.style!r}",
            )
        except ActivityError:
            enhanced = EnhancedPrompt(original=original, final=original)
            self._events.thought(RAG, "风格检索失败，使用原始 Prompt 继续", level="warning")
        else:
            if enhanced.retrieved:
                names = "、".join(r.style for r in enhanced.retrieved)
                self._events.thought(RAG, f"检索到 {len(enhanced.retrieved)} 条相关风格：{names}")
            else:
                self._events.thought(RAG, "未检索到匹配的风格，使用原始 Prompt")
        self._state.enhanced_prompt = enhanced
        return EXECUTOR

    async def _executor(self) -> str:
        intent = self._require_intent()
        self._events.thought(EXECUTOR, f"开始执行任务：{TASK_TYPE_FOR_ACTION.get(intent.action, intent.action)}...")
        self._events.progress(EXECUTOR, "生成中...", 10)
        prompt = self._final_prompt(intent)
        request = ExecutorRequest(
            session_id=self._state.metadata.session_id,
            intent=intent,
            prompt=prompt,
            seed=self._seed(prompt),
            parameters=self._parameters(intent),
            mask=self._state.user_input.mask_data,
            base_image_url=self._base_image_url() if intent.action != "generate_image" else None,
            preferred_model=self._state.user_input.preferred_model,
        )
        try:
            result = await self._execute(
                ActivityName.EXECUTOR,
                request,
                ExecutionResult,
                policies.EXECUTOR,
                f"{TASK_TYPE_FOR_ACTION.get(intent.action)} {request.parameters.width}x{request.parameters.height}",
            )
        except ActivityError as err:
            return self._fail(err, ErrorCode.EXECUTION_FAILED)
        self._state.execution_result = result
        canvas = smart_canvas(result)
        self._show(EXECUTOR, canvas)
        self._events.progress(EXECUTOR, "生成完成", 100)
        self._events.thought(EXECUTOR, "任务执行完成")
        return CRITIC

    async def _critic(self) -> str:
        intent = self._require_intent()
        result = self._state.execution_result
        assert result is not None, "the Critic runs only after a successful Executor"
        self._events.thought(CRITIC, "开始质量审查...")
        try:
            check = await self._execute(
                ActivityName.CRITIC,
                CriticRequest(
                    intent=intent,
                    prompt=result.prompt,
                    result=result,
                    mask=self._state.user_input.mask_data,
                    base_image_url=self._base_image_url() if intent.action == "inpainting" else None,
                ),
                QualityCheck,
                policies.CRITIC,
                f"check {result.task_type} image",
            )
        except ActivityError:
            check = QualityCheck(
                passed=True, score=0.7, degraded=True, feedback="质量审查失败，按通过处理（seed 000 §3.4 降级）"
            )
            self._events.thought(CRITIC, "质量审查失败，默认通过", level="warning")
        self._state.quality_check = check
        verdict = "通过" if check.passed else "未通过"
        self._events.thought(CRITIC, f"审查完成，评分：{round(check.score * 100)}/100，{verdict}", score=check.score)
        next_node = route_after_critic(self._state)
        if next_node == RAG:
            self._state.metadata.retry_count += 1
            self._events.thought(
                CRITIC,
                f"质量不足，重新生成（第 {self._state.metadata.retry_count} 次）：{'；'.join(check.suggestions)}",
            )
        return next_node

    async def _genui(self) -> str:
        self._show(GENUI, action_panel(self._state))
        self._show(GENUI, result_message(self._state))
        return END

    async def _error_handler(self) -> str:
        error = self._state.error or ErrorInfo(code=ErrorCode.UNKNOWN_ERROR, message="未知错误", node="unknown")
        self._events.emit("error", ERROR_HANDLER, error.model_dump(by_alias=True))
        self._show(ERROR_HANDLER, error_message(error))
        return END

    # ---- helpers ----

    async def _execute(
        self, activity: str, arg: Any, result_type: type[ResultT], options: NodeOptions, summary: str
    ) -> ResultT:
        """Run one node's activity with its declared options; a cancelled run stays cancelled."""
        try:
            result: ResultT = await workflow.execute_activity(
                activity, arg, result_type=result_type, summary=summary, **options.kwargs()
            )
        except ActivityError as err:
            if isinstance(err.cause, CancelledError):
                raise asyncio.CancelledError() from err
            raise
        return result

    def _goto(self, node: str) -> str:
        metadata = self._state.metadata
        metadata.transitions.append((metadata.current_node, node))
        metadata.current_node = node
        workflow.set_current_details(f"node: **{node}** · regenerations: {metadata.retry_count}")
        return node

    def _fail(self, err: ActivityError, default: ErrorCode) -> str:
        node = self._state.metadata.current_node
        cause = err.cause
        if isinstance(cause, ApplicationError) and cause.type in ErrorCode.__members__:
            self._state.error = ErrorInfo(code=cause.type, message=cause.message, node=node)
        elif isinstance(cause, NodeTimeoutError):
            self._state.error = ErrorInfo(code=default, message=f"{node} 节点超时（已重试 3 次）", node=node)
        else:
            message = cause.message if isinstance(cause, ApplicationError) else str(cause or err)
            self._state.error = ErrorInfo(code=default, message=f"{node} 节点失败：{message}", node=node)
        return ERROR_HANDLER

    async def _abort(self, graph: asyncio.Task[None], code: ErrorCode, message: str) -> None:
        """End a run that is still in a node (deadline or cancel) through the ErrorHandler."""
        graph.cancel()
        await workflow.wait([graph])
        node = self._state.metadata.current_node
        self._state.error = ErrorInfo(code=code, message=message, node=node)
        self._goto(ERROR_HANDLER)
        self._goto(await self._error_handler())

    def _finish(self, status: str) -> None:
        workflow.upsert_search_attributes([RUN_STATUS.value_set(status)])
        self._events.emit("stream_end", END, {"status": status, "error": self._error_dict()})

    def _error_dict(self) -> dict[str, Any] | None:
        return self._state.error.model_dump(by_alias=True) if self._state.error else None

    def _show(self, node: str, component: GenUIComponent) -> None:
        ui = self._state.ui_components
        if component.id is not None:
            ui[:] = [c for c in ui if c.id != component.id]
        ui.append(component)
        self._events.emit("gen_ui_component", node, component.model_dump(by_alias=True, exclude_none=True))

    def _require_intent(self) -> Intent:
        assert self._state.intent is not None, "the Planner sets the intent before later nodes run"
        return self._state.intent

    def _final_prompt(self, intent: Intent) -> str:
        if self._state.enhanced_prompt is not None:
            return self._state.enhanced_prompt.final
        return intent.prompt or self._state.user_input.text

    def _seed(self, prompt: str) -> int:
        """The same prompt gives the same image; each regeneration moves to the next seed."""
        previous = self._input.previous
        base = previous.seed if previous and self._require_intent().action == "adjust_parameters" else None
        if base is None:
            base = zlib.crc32(prompt.encode("utf-8"))
        return (base + self._state.metadata.retry_count) % 2**31

    def _parameters(self, intent: Intent) -> ImageParameters:
        previous = self._input.previous
        params = ImageParameters()
        if previous is not None and intent.action != "generate_image":
            params = ImageParameters(
                width=previous.width, height=previous.height, style_strength=previous.style_strength
            )
        known = {k: v for k, v in intent.parameters.items() if k in ("width", "height", "style_strength")}
        return params.model_copy(update=known)

    def _base_image_url(self) -> str | None:
        mask = self._state.user_input.mask_data
        if mask is not None and mask.image_url:
            return mask.image_url
        return self._input.previous.image_url if self._input.previous else None
