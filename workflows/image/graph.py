"""The image agent's declared graph (seed 004 §2.1, §8) and its conditional edges (000 §4, 004 §12.2).

Routing functions are pure: they read the state and name the next node, so tests can check them directly and
every transition a run records can be checked against `GRAPH`.
"""

from enum import StrEnum

from temporalio import workflow

from workflows.common.graph import START, Edge, Graph

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode
    from models.image.errors import ImageErrorCode
    from models.image.state import ImageAgentState, Intent

VALIDATE_INPUT = "validate_input"
PLANNER = "planner"
RAG = "rag"
EXECUTOR = "executor"
CRITIC = "critic"
GENUI = "genui"
ERROR_HANDLER = "error_handler"
END = "stream_end"

MAX_REGENERATIONS = 3
MIN_CONFIDENCE = 0.5

GRAPH = Graph(
    name="ImageAgentWorkflow",
    nodes={
        START: "用户请求",
        VALIDATE_INPUT: "ValidateInput<br/>输入验证",
        PLANNER: "Planner<br/>意图解析",
        RAG: "RAG<br/>风格检索",
        EXECUTOR: "Executor<br/>任务执行",
        CRITIC: "Critic<br/>质量审查",
        GENUI: "GenUI<br/>生成界面",
        ERROR_HANDLER: "ErrorHandler<br/>错误处理",
        END: "流结束 stream_end",
    },
    edges=(
        Edge(START, VALIDATE_INPUT, "用户请求（排队的请求轮到时）"),
        Edge(START, ERROR_HANDLER, "排队时被取消"),
        Edge(VALIDATE_INPUT, PLANNER, "验证通过"),
        Edge(VALIDATE_INPUT, ERROR_HANDLER, "验证失败"),
        Edge(PLANNER, RAG, "解析成功且有风格关键词"),
        Edge(PLANNER, EXECUTOR, "解析成功且无风格关键词"),
        Edge(PLANNER, ERROR_HANDLER, "解析失败 / 意图未知 / 缺少蒙版或图片"),
        Edge(RAG, EXECUTOR, "检索完成（失败时用原始 Prompt）"),
        Edge(RAG, ERROR_HANDLER, "60 s 总时限已到"),
        Edge(EXECUTOR, CRITIC, "执行成功"),
        Edge(EXECUTOR, ERROR_HANDLER, "执行失败"),
        Edge(CRITIC, GENUI, "通过审查，或未通过且不可重试"),
        Edge(CRITIC, RAG, "未通过且重试次数 < 3"),
        Edge(CRITIC, ERROR_HANDLER, "60 s 总时限已到"),
        Edge(GENUI, END, "组件生成完成"),
        Edge(ERROR_HANDLER, END, "推送错误消息"),
    ),
    end=END,
)


def routing_error(intent: Intent, state: ImageAgentState, has_base_image: bool) -> tuple[StrEnum, str] | None:
    """Why a parsed intent cannot go on (seed 000 §3.1 flow conditions, §7.2, §7.3), or None."""
    if intent.action == "unknown" or intent.confidence < MIN_CONFIDENCE:
        return (
            ImageErrorCode.INTENT_UNKNOWN,
            "我还不太明白你想做什么。可以试试：“生成一只赛博朋克风格的猫”，或在画布上圈出区域后说“换成机械头盔”。",
        )
    if intent.action == "inpainting" and state.user_input.mask_data is None:
        return ImageErrorCode.MASK_REQUIRED, "请先在画布上涂抹出需要修改的区域（蒙版），再告诉我要改成什么。"
    if intent.action in ("inpainting", "adjust_parameters") and not has_base_image:
        if intent.action == "adjust_parameters":
            return ImageErrorCode.NO_PREVIOUS_IMAGE, "还没有可以调整的图片，请先生成一张。"
        return ErrorCode.IMAGE_NOT_FOUND, "局部重绘需要一张原图：请先生成图片，或在 maskData.imageUrl 中给出原图。"
    return None


def route_after_planner(intent: Intent) -> str:
    """004 §12.2 shouldContinueToRAG: RAG only when the intent has a style keyword."""
    return RAG if intent.style and intent.style.strip() else EXECUTOR


def route_after_critic(state: ImageAgentState) -> str:
    """004 §12.2 shouldContinueToGenUI: regenerate (back to RAG) while retryCount < 3."""
    check = state.quality_check
    if check is not None and check.needs_regeneration and state.metadata.retry_count < MAX_REGENERATIONS:
        return RAG
    return GENUI
