"""The image turn's first phase: ValidateInput and the Planner, which turn the user's message into an intent.

ValidateInput checks and cleans the text and image URL (its warnings become thoughts); the Planner parses the
intent with the LLM when one is configured, falling back to keyword matching when that call fails for good, then
refuses an intent the turn cannot carry out (`graph.routing_error`) and names the next node (`route_after_planner`).
"""

from temporalio import workflow

from workflows import policies
from workflows.image.graph import MIN_CONFIDENCE, PLANNER, VALIDATE_INPUT, route_after_planner, routing_error
from workflows.image.turn import ImageTurn

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode, ErrorInfo
    from models.image import nodes
    from models.image.errors import ImageErrorCode
    from models.image.nodes import PlannerRequest, ValidateRequest
    from models.search_attributes import INTENT_ACTION


class Intake:
    """The ValidateInput and Planner nodes."""

    def __init__(self, turn: ImageTurn) -> None:
        self._turn = turn

    async def validate_input(self) -> str:
        turn = self._turn
        if turn.context is None:  # queued, and its session is gone: it never gets its turn
            message = "会话已结束，排队中的请求未执行（session ended）"
            return turn.run.fail_with(
                ErrorInfo(code=ImageErrorCode.SESSION_ENDED, message=message, node=VALIDATE_INPUT)
            )
        validated = await turn.run.call_or_fail(
            nodes.VALIDATE_INPUT,
            ValidateRequest(user_input=turn.state.user_input),
            policies.IMAGE_VALIDATE_INPUT,
            summary="validate text and image URL",
            code=ErrorCode.INVALID_INPUT_EMPTY,
        )
        turn.state.user_input = validated.user_input
        for warning in validated.warnings:
            turn.thought(VALIDATE_INPUT, warning.message, code=warning.code, level="warning")
        return PLANNER

    async def planner(self) -> str:
        turn = self._turn
        user_input = turn.state.user_input
        turn.thought(PLANNER, "正在分析意图...")
        if user_input.mask_data is not None:
            turn.thought(PLANNER, "检测到蒙版数据，意图将设为局部重绘")
        request = PlannerRequest(
            text=user_input.text,
            has_mask=user_input.mask_data is not None,
            messages=turn.state.messages,
            previous=turn.previous(),
            use_llm=turn.input.llm_configured,
        )
        intent = await turn.run.call_with_degrade(
            nodes.PLANNER,
            request,
            policies.IMAGE_PLANNER,
            summary="parse intent (LLM)",
            use_llm=request.use_llm,
            offline=request.model_copy(update={"use_llm": False}),
            offline_options=policies.IMAGE_PLANNER_KEYWORDS,
            offline_summary="parse intent (keywords)",
            degraded=lambda err: turn.thought(
                PLANNER,
                f"意图规划降级为关键词匹配：{err.what_happened()}"[:300],
                level="warning",
                code=ErrorCode.AGENT_DEGRADED,
            ),
            code=ErrorCode.PLANNER_FAILED,
        )
        if intent.confidence < MIN_CONFIDENCE:
            intent = intent.model_copy(update={"action": "unknown"})
        turn.state.intent = intent
        turn.run.tag(INTENT_ACTION.value_set(intent.action))
        turn.thought(PLANNER, f"已识别意图：{intent.action}，置信度：{intent.confidence:.2f}", intent=intent.action)
        problem = routing_error(intent, turn.state, turn.base_image() is not None)
        if problem is not None:
            code, message = problem
            return turn.run.fail_with(ErrorInfo(code=code, message=message, node=PLANNER))
        return route_after_planner(intent)
