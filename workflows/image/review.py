"""The Critic node: the quality review of the Executor's image, and the regeneration loop back to RAG (seed 000
§3.4, 004 §12.2).

The review uses the LLM while it is configured and has not failed this turn. Its LLM review is retried like any
node's call; when it failed for good a warning (AGENT_DEGRADED) says so, the rule checks answer, and the rest of
the turn uses them alone. A review that fails for good even then is not the turn's failure: the image passes,
marked degraded. A review that asks for regeneration sends the turn back to RAG, at most `MAX_REGENERATIONS` times.
"""

from temporalio import workflow

from workflows import policies
from workflows.common.run import NodeFailed
from workflows.image.graph import CRITIC, RAG, route_after_critic
from workflows.image.turn import ImageTurn

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode
    from models.image import nodes
    from models.image.nodes import CriticRequest
    from models.image.state import QualityCheck

CHECKS_AFTER_FAILED_REVIEW = "image-critic-checks-after-failed-llm-review"
"""`workflow.patched` id: a Critic whose LLM review failed for good runs the rule checks (a local activity)."""


class Review:
    """The Critic node, and whether its LLM review is still in use this turn."""

    def __init__(self, turn: ImageTurn) -> None:
        self._turn = turn
        self._uses_llm = turn.input.llm_configured

    async def critic(self) -> str:
        turn = self._turn
        intent = turn.intent()
        result = turn.state.execution_result
        assert result is not None, "the Critic runs only after a successful Executor"
        turn.thought(CRITIC, "开始质量审查...")
        request = CriticRequest(
            intent=intent,
            prompt=result.prompt,
            result=result,
            mask=turn.state.user_input.mask_data,
            base_image=turn.base_image() if intent.action == "inpainting" else None,
            use_llm=self._uses_llm,
        )
        try:
            check = await self._check(request, f"check {result.task_type} image")
        except NodeFailed:
            check = QualityCheck(
                passed=True, score=0.7, degraded=True, feedback="质量审查失败，按通过处理（seed 000 §3.4 降级）"
            )
            turn.thought(CRITIC, "质量审查失败，默认通过", level="warning")
        if check.llm_review_failed:
            self._uses_llm = False
        turn.state.quality_check = check
        verdict = "通过" if check.passed else "未通过"
        turn.thought(CRITIC, f"审查完成，评分：{round(check.score * 100)}/100，{verdict}", score=check.score)
        next_node = route_after_critic(turn.state)
        if next_node == RAG:
            turn.state.metadata.retry_count += 1
            turn.thought(
                CRITIC,
                f"质量不足，重新生成（第 {turn.state.metadata.retry_count} 次）：{'；'.join(check.suggestions)}",
            )
        return next_node

    async def _check(self, request: CriticRequest, summary: str) -> QualityCheck:
        """The Critic's activity: with the LLM's review while it is in use, else the rule checks alone (local);
        an LLM review that failed for good is announced and the rule checks answer (`llm_review_failed`)."""
        run = self._turn.run
        if not request.use_llm:
            return await run.call(nodes.CRITIC, request, policies.IMAGE_CRITIC_CHECKS, summary=summary)
        try:
            return await run.call(nodes.CRITIC, request, policies.IMAGE_CRITIC, summary=summary)
        except NodeFailed as err:
            if not workflow.patched(CHECKS_AFTER_FAILED_REVIEW):
                raise
            failed = err
        self._uses_llm = False
        message = f"LLM 质量审查失败，改用规则检查：{failed.cause}"[:300]
        self._turn.thought(CRITIC, message, level="warning", code=ErrorCode.AGENT_DEGRADED)
        checks = request.model_copy(update={"use_llm": False})
        check = await run.call(nodes.CRITIC, checks, policies.IMAGE_CRITIC_CHECKS, summary=f"{summary} (checks)")
        return check.model_copy(update={"llm_review_failed": True})
