"""The LangGraph baseline's graph: the image agent as a LangGraph `StateGraph` over this project's own node code.

This module owns what the baseline runs, not how it is served (`tests.bench.baseline_server`):

- `NodeFunctions`: the project's five activity methods (`InputValidator(blobs).validate_input`, `Planner(...).plan`,
  `StyleRetriever(store).retrieve_styles`, `ImageExecutor(...).execute`, `ImageCritic(...).critique`), built by
  `worker.build_activities` itself and called directly as plain async functions, outside Temporal;
- `call_node`: each call with its node's declared options from `workflows.policies` (start-to-close timeout,
  the 5/10/20 s retry backoff, the budget, non-retryable failures not retried), as Temporal applies them;
- `build_graph`: one LangGraph node per workflow node (ValidateInput → Planner → RAG → Executor → Critic → GenUI,
  ErrorHandler), each a transcription of its `ImageAgentWorkflow` method: the same requests, the same routing
  functions from `workflows.image.graph` (called in the node, which names its successor with a `Command`, as the
  workflow's nodes return theirs), the same `thought_log` / `progress` / `gen_ui_component` / `error` events (sent
  with LangGraph's stream writer, the components from `workflows.image.ui`) and the same degrade paths.

The state is one LangGraph channel per field of `ImageAgentState` the nodes read or write, holding the project's
pydantic models; with a checkpointer, LangGraph writes a checkpoint of it after every step.
"""

import asyncio
import dataclasses
import operator
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, TypedDict, TypeVar, cast

from langgraph.config import get_stream_writer
from langgraph.graph import END as LG_END
from langgraph.graph import START as LG_START
from langgraph.graph import StateGraph
from langgraph.types import Command
from pydantic import BaseModel
from temporalio.exceptions import ApplicationError

import worker
from api.principals import LOCAL_PRINCIPAL
from models.blobs import ImageRef
from models.errors import ErrorCode, ErrorInfo, is_error_code
from models.events import RunEnd, RunStatus
from models.image import nodes
from models.image.events import IMAGE_EVENTS, Progress, ThoughtLog
from models.image.genui import GenUIComponent
from models.image.nodes import (
    CriticRequest,
    ExecutorRequest,
    PlannerRequest,
    RagRequest,
    ValidatedInput,
    ValidateRequest,
)
from models.image.runs import ImageTurnResult
from models.image.state import (
    TASK_TYPE_FOR_ACTION,
    EnhancedPrompt,
    ExecutionResult,
    ImageAgentMetadata,
    ImageAgentState,
    ImageParameters,
    Intent,
    Message,
    PreviousResult,
    QualityCheck,
    UserInput,
)
from models.settings import Settings
from workflows import policies
from workflows.image.graph import (
    CRITIC,
    END,
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
from workflows.image.ui import action_panel, error_message, result_message, smart_canvas
from workflows.policies import NodeOptions

InputT = TypeVar("InputT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)


@dataclass(frozen=True)
class NodeFunctions:
    """The project's activity methods, as plain async functions."""

    validate_input: Callable[[ValidateRequest], Awaitable[ValidatedInput]]
    plan: Callable[[PlannerRequest], Awaitable[Intent]]
    retrieve_styles: Callable[[RagRequest], Awaitable[EnhancedPrompt]]
    execute: Callable[[ExecutorRequest], Awaitable[ExecutionResult]]
    critique: Callable[[CriticRequest], Awaitable[QualityCheck]]

    @classmethod
    def build(cls, settings: Settings) -> "NodeFunctions":
        """Wired exactly as the worker wires them (`worker.build_activities`), offline: no LLM client. The image
        family's other activities (a hosted model's submit and polls) are not nodes of the offline graph."""
        fields = {field.name for field in dataclasses.fields(cls)}
        functions = {fn.__name__: fn for fn in worker.build_activities(settings)["image"] if fn.__name__ in fields}
        return cls(**functions)

    def by_activity(self) -> dict[str, Callable[[Any], Awaitable[BaseModel]]]:
        """Each function by the activity name the worker registers it under (`image.planner`, ...)."""
        return {
            nodes.VALIDATE_INPUT.name: self.validate_input,
            nodes.PLANNER.name: self.plan,
            nodes.RAG.name: self.retrieve_styles,
            nodes.EXECUTOR.name: self.execute,
            nodes.CRITIC.name: self.critique,
        }

    def recording(self, calls: list["NodeCall"]) -> "NodeFunctions":
        """The same functions, each call appended to `calls` with its request and result."""

        def wrap(name: str, fn: Callable[[InputT], Awaitable[ResultT]]) -> Callable[[InputT], Awaitable[ResultT]]:
            async def call(request: InputT) -> ResultT:
                result = await fn(request)
                calls.append(NodeCall(name=name, request=request, result=result))
                return result

            return call

        return NodeFunctions(
            validate_input=wrap(nodes.VALIDATE_INPUT.name, self.validate_input),
            plan=wrap(nodes.PLANNER.name, self.plan),
            retrieve_styles=wrap(nodes.RAG.name, self.retrieve_styles),
            execute=wrap(nodes.EXECUTOR.name, self.execute),
            critique=wrap(nodes.CRITIC.name, self.critique),
        )


@dataclass(frozen=True)
class NodeCall:
    """One call of a node function: the activity it is registered as, its request and its result."""

    name: str
    request: BaseModel
    result: BaseModel


# ---- events ----


@dataclass(frozen=True)
class NodeEvent:
    """An event a node emits; the server numbers it (`seq`) and sends it as SSE."""

    type: str
    node: str
    payload: BaseModel
    ts: datetime


def event(type: str, node: str, payload: BaseModel) -> NodeEvent:
    """An event of the image agent's catalog (checked like `EventLog.emit` checks it)."""
    IMAGE_EVENTS.check(type, payload)
    return NodeEvent(type=type, node=node, payload=payload, ts=datetime.now(UTC))


def emit(type: str, node: str, payload: BaseModel) -> None:
    """Send an event on the run's stream (LangGraph's `custom` stream mode)."""
    get_stream_writer()(event(type, node, payload))


def thought(
    node: str,
    message: str,
    *,
    level: str | None = None,
    code: str | None = None,
    intent: str | None = None,
    score: float | None = None,
) -> None:
    payload = ThoughtLog.model_validate(
        {"node": node, "message": message, "level": level, "code": code, "intent": intent, "score": score}
    )
    emit("thought_log", node, payload)


def error_handler_events(error: ErrorInfo) -> list[NodeEvent]:
    """What the ErrorHandler node emits: the `error` event and the failed AgentMessage."""
    return [event("error", ERROR_HANDLER, error), event("gen_ui_component", ERROR_HANDLER, error_message(error))]


def terminal_event(status: RunStatus, error: ErrorInfo | None) -> NodeEvent:
    """The run's last event, as `GraphRun.finish` emits it."""
    return event(IMAGE_EVENTS.terminal, END, RunEnd(status=status, error=error))


# ---- calling a node with its declared options ----


class NodeFailure(Exception):
    """A node's call failed for good (a non-retryable error, or its retries or budget spent)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


async def call_node(fn: Callable[[InputT], Awaitable[ResultT]], request: InputT, options: NodeOptions) -> ResultT:
    """One node's call with the options Temporal would apply to its activity (`NodeOptions.kwargs()`)."""
    retry = options.retry
    loop = asyncio.get_running_loop()
    budget_end = loop.time() + options.budget.total_seconds() if options.budget is not None else None
    interval = retry.initial_interval.total_seconds()
    attempt = 0
    while True:
        attempt += 1
        limit = options.start_to_close.total_seconds()
        if budget_end is not None:
            limit = min(limit, budget_end - loop.time())
        wait = interval
        try:
            async with asyncio.timeout(limit):
                return await fn(request)
        except ApplicationError as err:
            if err.non_retryable or err.type in (retry.non_retryable_error_types or ()):
                raise NodeFailure(err) from err
            failure: BaseException = err
            if err.next_retry_delay is not None:
                wait = err.next_retry_delay.total_seconds()
        except Exception as err:
            failure = err
        out_of_attempts = retry.maximum_attempts and attempt >= retry.maximum_attempts
        if out_of_attempts or (budget_end is not None and loop.time() + wait >= budget_end):
            raise NodeFailure(failure)
        await asyncio.sleep(wait)
        longest = retry.maximum_interval.total_seconds() if retry.maximum_interval else float("inf")
        interval = min(interval * retry.backoff_coefficient, longest)


def node_error(failure: NodeFailure, node: str, default: ErrorCode) -> ErrorInfo:
    """`GraphRun.fail`: a coded non-retryable failure keeps its code; a timeout or other failure gets `default`."""
    cause = failure.cause
    if isinstance(cause, ApplicationError) and is_error_code(cause.type):
        return ErrorInfo(code=cause.type, message=cause.message, node=node)
    if isinstance(cause, TimeoutError):
        return ErrorInfo(code=default, message=f"{node} 节点超时（重试后仍未完成）", node=node)
    message = cause.message if isinstance(cause, ApplicationError) else str(cause)
    return ErrorInfo(code=default, message=f"{node} 节点失败：{message}", node=node)


# ---- the graph ----


class TurnState(TypedDict, total=False):
    """The run's state, one channel per field; `path` accumulates the nodes run (the workflow's transitions)."""

    session_id: str
    user_input: UserInput
    messages: list[Message]
    previous: PreviousResult | None
    intent: Intent | None
    enhanced_prompt: EnhancedPrompt | None
    retrieved_request: RagRequest | None
    retrieved_prompt: EnhancedPrompt | None
    execution_result: ExecutionResult | None
    quality_check: QualityCheck | None
    retry_count: int
    llm_configured: bool
    critic_uses_llm: bool
    ui_components: list[GenUIComponent]
    error: ErrorInfo | None
    path: Annotated[list[str], operator.add]


def initial_state(
    session_id: str,
    user_input: UserInput,
    messages: list[Message],
    previous: PreviousResult | None,
    *,
    llm_configured: bool = False,
) -> TurnState:
    """A turn's input, as the session hands it to `ImageAgentInput` (context: recent messages, last image;
    whether the nodes have an LLM: offline, they have none)."""
    return TurnState(
        session_id=session_id,
        user_input=user_input,
        messages=messages,
        previous=previous,
        intent=None,
        enhanced_prompt=None,
        retrieved_request=None,
        retrieved_prompt=None,
        execution_result=None,
        quality_check=None,
        retry_count=0,
        llm_configured=llm_configured,
        critic_uses_llm=llm_configured,
        ui_components=[],
        error=None,
        path=[],
    )


def agent_state(state: TurnState, node: str) -> ImageAgentState:
    """The channels as the workflow's `ImageAgentState`, for the shared routing and UI functions."""
    return ImageAgentState(
        messages=state.get("messages", []),
        user_input=state["user_input"],
        intent=state.get("intent"),
        enhanced_prompt=state.get("enhanced_prompt"),
        execution_result=state.get("execution_result"),
        quality_check=state.get("quality_check"),
        ui_components=state.get("ui_components", []),
        error=state.get("error"),
        metadata=ImageAgentMetadata(
            session_id=state["session_id"], current_node=node, retry_count=state.get("retry_count", 0)
        ),
    )


def shown(ui: list[GenUIComponent], node: str, component: GenUIComponent) -> list[GenUIComponent]:
    """`ImageTurn.show` (workflows/image/turn.py): the components with `component` replacing any of its id; emits it."""
    kept = [c for c in ui if component.id is None or c.id != component.id]
    emit("gen_ui_component", node, component)
    return [*kept, component]


def turn_result(state: TurnState) -> ImageTurnResult:
    """`turn_result` (workflows/image/delivery.py): what the session keeps of the turn."""
    status: RunStatus = "failed" if state.get("error") else "completed"
    error = state.get("error")
    result = state.get("execution_result")
    if error is not None:
        return ImageTurnResult(status=status, reply=error.message)
    if result is None:
        return ImageTurnResult(status=status, reply="已完成")
    intent = state.get("intent")
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


class ImageAgentNodes:
    """The workflow's node methods, one LangGraph node each; helpers as in `ImageAgentWorkflow`."""

    def __init__(self, functions: NodeFunctions) -> None:
        self._f = functions

    async def validate_input(self, state: TurnState) -> Command[str]:
        try:
            validated = await call_node(
                self._f.validate_input,
                ValidateRequest(user_input=state["user_input"]),
                policies.IMAGE_VALIDATE_INPUT,
            )
        except NodeFailure as failure:
            return _fail(VALIDATE_INPUT, node_error(failure, VALIDATE_INPUT, ErrorCode.INVALID_INPUT_EMPTY))
        for warning in validated.warnings:
            thought(VALIDATE_INPUT, warning.message, code=warning.code, level="warning")
        return Command(update={"user_input": validated.user_input, "path": [VALIDATE_INPUT]}, goto=PLANNER)

    async def planner(self, state: TurnState) -> Command[str]:
        user_input = state["user_input"]
        thought(PLANNER, "正在分析意图...")
        if user_input.mask_data is not None:
            thought(PLANNER, "检测到蒙版数据，意图将设为局部重绘")
        request = PlannerRequest(
            text=user_input.text,
            has_mask=user_input.mask_data is not None,
            messages=state.get("messages", []),
            previous=state.get("previous"),
            use_llm=state.get("llm_configured", False),
        )
        try:
            intent = await self._plan(request)
        except NodeFailure as failure:
            if not request.use_llm:
                return _fail(PLANNER, node_error(failure, PLANNER, ErrorCode.PLANNER_FAILED))
            thought(PLANNER, "LLM 调用失败，降级为关键词匹配")
            try:
                intent = await self._plan(request.model_copy(update={"use_llm": False}))
            except NodeFailure as failure:
                return _fail(PLANNER, node_error(failure, PLANNER, ErrorCode.PLANNER_FAILED))
        if intent.confidence < MIN_CONFIDENCE:
            intent = intent.model_copy(update={"action": "unknown"})
        thought(PLANNER, f"已识别意图：{intent.action}，置信度：{intent.confidence:.2f}", intent=intent.action)
        update: dict[str, Any] = {"intent": intent, "path": [PLANNER]}
        problem = routing_error(intent, agent_state(state, PLANNER), _base_image(state) is not None)
        if problem is not None:
            code, message = problem
            return Command(
                update=update | {"error": ErrorInfo(code=code, message=message, node=PLANNER)}, goto=ERROR_HANDLER
            )
        return Command(update=update, goto=route_after_planner(intent))

    async def _plan(self, request: PlannerRequest) -> Intent:
        options = policies.IMAGE_PLANNER if request.use_llm else policies.IMAGE_PLANNER_KEYWORDS
        return await call_node(self._f.plan, request, options)

    async def rag(self, state: TurnState) -> Command[str]:
        intent = _require_intent(state)
        original = intent.prompt or state["user_input"].text
        if not (intent.style and intent.style.strip()):
            thought(RAG, "没有风格关键词，跳过检索，使用原始 Prompt")
            enhanced = EnhancedPrompt(original=original, final=original)
            return Command(update={"enhanced_prompt": enhanced, "path": [RAG]}, goto=EXECUTOR)
        request = RagRequest(original=original, style=intent.style, subject=intent.subject)
        cached = state.get("retrieved_prompt")
        if cached is not None and state.get("retrieved_request") == request:
            thought(RAG, "重新生成：复用本轮已检索到的风格（seed 004 §10.2 缓存）")
            return Command(update={"enhanced_prompt": cached, "path": [RAG]}, goto=EXECUTOR)
        thought(RAG, f"正在检索风格库：{intent.style}...")
        update: dict[str, Any] = {"path": [RAG]}
        try:
            enhanced = await call_node(self._f.retrieve_styles, request, policies.IMAGE_RAG)
        except NodeFailure:
            enhanced = EnhancedPrompt(original=original, final=original)
            thought(RAG, "风格检索失败，使用原始 Prompt 继续", level="warning")
        else:
            update |= {"retrieved_request": request, "retrieved_prompt": enhanced}
            if enhanced.retrieved:
                names = "、".join(r.style for r in enhanced.retrieved)
                thought(RAG, f"检索到 {len(enhanced.retrieved)} 条相关风格：{names}")
            else:
                thought(RAG, "未检索到匹配的风格，使用原始 Prompt")
        return Command(update=update | {"enhanced_prompt": enhanced}, goto=EXECUTOR)

    async def executor(self, state: TurnState) -> Command[str]:
        intent = _require_intent(state)
        task = TASK_TYPE_FOR_ACTION.get(intent.action, intent.action)
        thought(EXECUTOR, f"开始执行任务：{task}...")
        emit("progress", EXECUTOR, Progress(node=EXECUTOR, message="生成中...", percent=10))
        prompt = _final_prompt(state, intent)
        request = ExecutorRequest(
            session_id=state["session_id"],
            intent=intent,
            prompt=prompt,
            seed=_seed(state, prompt),
            parameters=_parameters(state, intent),
            mask=state["user_input"].mask_data,
            base_image=_base_image(state) if intent.action != "generate_image" else None,
            preferred_model=state["user_input"].preferred_model,
            owner=LOCAL_PRINCIPAL,
        )
        try:
            result = await call_node(self._f.execute, request, policies.IMAGE_EXECUTOR)
        except NodeFailure as failure:
            return _fail(EXECUTOR, node_error(failure, EXECUTOR, ErrorCode.EXECUTION_FAILED))
        ui = shown(state.get("ui_components", []), EXECUTOR, smart_canvas(result))
        emit("progress", EXECUTOR, Progress(node=EXECUTOR, message="生成完成", percent=100))
        thought(EXECUTOR, "任务执行完成")
        return Command(update={"execution_result": result, "ui_components": ui, "path": [EXECUTOR]}, goto=CRITIC)

    async def critic(self, state: TurnState) -> Command[str]:
        intent = _require_intent(state)
        result = state.get("execution_result")
        assert result is not None, "the Critic runs only after a successful Executor"
        thought(CRITIC, "开始质量审查...")
        request = CriticRequest(
            intent=intent,
            prompt=result.prompt,
            result=result,
            mask=state["user_input"].mask_data,
            base_image=_base_image(state) if intent.action == "inpainting" else None,
            use_llm=state.get("critic_uses_llm", False),
        )
        options = policies.IMAGE_CRITIC if request.use_llm else policies.IMAGE_CRITIC_CHECKS
        try:
            check = await call_node(self._f.critique, request, options)
        except NodeFailure:
            check = QualityCheck(
                passed=True, score=0.7, degraded=True, feedback="质量审查失败，按通过处理（seed 000 §3.4 降级）"
            )
            thought(CRITIC, "质量审查失败，默认通过", level="warning")
        update: dict[str, Any] = {"quality_check": check, "path": [CRITIC]}
        if check.llm_review_failed:
            update["critic_uses_llm"] = False
        verdict = "通过" if check.passed else "未通过"
        thought(CRITIC, f"审查完成，评分：{round(check.score * 100)}/100，{verdict}", score=check.score)
        next_node = route_after_critic(agent_state(cast(TurnState, {**state, **update}), CRITIC))
        if next_node == RAG:
            retries = state.get("retry_count", 0) + 1
            update["retry_count"] = retries
            thought(CRITIC, f"质量不足，重新生成（第 {retries} 次）：{'；'.join(check.suggestions)}")
        return Command(update=update, goto=next_node)

    async def genui(self, state: TurnState) -> dict[str, Any]:
        current = agent_state(state, GENUI)
        ui = shown(state.get("ui_components", []), GENUI, action_panel(current))
        ui = shown(ui, GENUI, result_message(current))
        return {"ui_components": ui, "path": [GENUI]}

    async def error_handler(self, state: TurnState) -> dict[str, Any]:
        error = state.get("error") or ErrorInfo(code=ErrorCode.UNKNOWN_ERROR, message="未知错误", node="unknown")
        writer = get_stream_writer()
        for item in error_handler_events(error):
            writer(item)
        ui = [*state.get("ui_components", []), error_message(error)]
        return {"ui_components": ui, "path": [ERROR_HANDLER]}


def _fail(node: str, error: ErrorInfo) -> Command[str]:
    return Command(update={"error": error, "path": [node]}, goto=ERROR_HANDLER)


def _require_intent(state: TurnState) -> Intent:
    intent = state.get("intent")
    assert intent is not None, "the Planner sets the intent before later nodes run"
    return intent


def _final_prompt(state: TurnState, intent: Intent) -> str:
    enhanced = state.get("enhanced_prompt")
    if enhanced is not None:
        return enhanced.final
    return intent.prompt or state["user_input"].text


def _seed(state: TurnState, prompt: str) -> int:
    """`Execution._seed` (workflows/image/execution.py): the same prompt gives the same image; a regeneration moves
    to the next seed."""
    previous = state.get("previous")
    base = previous.seed if previous and _require_intent(state).action == "adjust_parameters" else None
    if base is None:
        base = zlib.crc32(prompt.encode("utf-8"))
    return (base + state.get("retry_count", 0)) % 2**31


def _parameters(state: TurnState, intent: Intent) -> ImageParameters:
    previous = state.get("previous")
    params = ImageParameters()
    if previous is not None and intent.action != "generate_image":
        params = ImageParameters(width=previous.width, height=previous.height, style_strength=previous.style_strength)
    known = {k: v for k, v in intent.parameters.items() if k in ("width", "height", "style_strength")}
    return params.model_copy(update=known)


def _base_image(state: TurnState) -> ImageRef | None:
    mask = state["user_input"].mask_data
    if mask is not None and mask.image is not None:
        return mask.image
    previous = state.get("previous")
    return ImageRef(blob_key=previous.blob_key) if previous else None


def build_graph(functions: NodeFunctions) -> StateGraph[TurnState, None, TurnState, TurnState]:
    """The image agent's graph; routing lives in the nodes (each returns a `Command` naming its successor)."""
    steps = ImageAgentNodes(functions)
    graph: StateGraph[TurnState, None, TurnState, TurnState] = StateGraph(TurnState)
    graph.add_node(VALIDATE_INPUT, steps.validate_input, destinations=(PLANNER, ERROR_HANDLER))
    graph.add_node(PLANNER, steps.planner, destinations=(RAG, EXECUTOR, ERROR_HANDLER))
    graph.add_node(RAG, steps.rag, destinations=(EXECUTOR,))
    graph.add_node(EXECUTOR, steps.executor, destinations=(CRITIC, ERROR_HANDLER))
    graph.add_node(CRITIC, steps.critic, destinations=(GENUI, RAG))
    graph.add_node(GENUI, steps.genui)
    graph.add_node(ERROR_HANDLER, steps.error_handler)
    graph.add_edge(LG_START, VALIDATE_INPUT)
    graph.add_edge(GENUI, LG_END)
    graph.add_edge(ERROR_HANDLER, LG_END)
    return graph
