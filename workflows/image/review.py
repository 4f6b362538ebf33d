"""The Critic node: the quality review of the Executor's image, and the regeneration loop back to RAG (seed 000
§3.4, 004 §12.2).

The review uses the LLM while it is configured and has not failed this turn. The LLM judges the prompt, not the
image, so the Executor starts that question (`begin`) as it starts drawing, and the Critic node waits for its answer
and then runs the pixel checks with it (a local activity): the model's time overlaps the render's instead of
following it. The LLM review is retried like any node's call; when it failed for good a warning (AGENT_DEGRADED)
says so, the rule checks answer, and the rest of the turn uses them alone. A review that fails for good even then
is not the turn's failure: the image passes, marked degraded. A review that asks for regeneration sends the turn
back to RAG, at most `MAX_REGENERATIONS` times.
"""

import asyncio

from temporalio import workflow

from workflows import policies
from workflows.common.patches import patched
from workflows.common.run import NodeFailed
from workflows.image.graph import CRITIC, RAG, route_after_critic
from workflows.image.turn import ImageTurn

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorCode
    from models.image import nodes
    from models.image.nodes import CriticRequest, PromptReviewRequest
    from models.image.state import Intent, PromptReview, QualityCheck

CHECKS_AFTER_FAILED_REVIEW = "image-critic-checks-after-failed-llm-review"
"""`workflow.patched` id: a Critic whose LLM review failed for good runs the rule checks (a local activity)."""
REVIEW_BESIDE_EXECUTOR = "image-critic-review-beside-executor"
"""`workflow.patched` id: the LLM's review of the prompt is its own activity, started with the Executor's; before
it, the Critic's activity asked the LLM after the image was drawn."""


class Review:
    """The Critic node, and whether its LLM review is still in use this turn."""

    def __init__(self, turn: ImageTurn) -> None:
        self._turn = turn
        self._uses_llm = turn.input.llm_configured
        self._prompt_review: asyncio.Task[PromptReview] | None = None
        """The LLM's review of the prompt the Executor is drawing, asked by `begin`; the Critic node takes it."""

    def begin(self, intent: Intent, prompt: str) -> None:
        """The Executor starts drawing `prompt`: ask the LLM's review of it now, while the LLM is in use."""
        if not self._uses_llm or not patched(REVIEW_BESIDE_EXECUTOR):
            return
        request = PromptReviewRequest(intent=intent, prompt=prompt)
        call = self._turn.run.call(nodes.PROMPT_REVIEW, request, policies.IMAGE_CRITIC, summary="review the prompt")
        self._prompt_review = asyncio.create_task(call)

    def cancel(self) -> None:
        """The Executor failed: the review of its prompt is not needed."""
        if self._prompt_review is not None:
            self._prompt_review.cancel()
            self._prompt_review = None

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
        """The Critic's activity: the checks with the LLM's review while it is in use, else the rule checks alone
        (local); an LLM review that failed for good is announced and the rule checks answer (`llm_review_failed`)."""
        run = self._turn.run
        pending, self._prompt_review = self._prompt_review, None
        if pending is not None:
            try:
                review = await pending
            except NodeFailed as err:
                return await self._checks_after_failed_review(request, err, summary)
            reviewed = request.model_copy(update={"use_llm": False, "review": review})
            return await run.call(nodes.CRITIC, reviewed, policies.IMAGE_CRITIC_CHECKS, summary=summary)
        if not request.use_llm:
            return await run.call(nodes.CRITIC, request, policies.IMAGE_CRITIC_CHECKS, summary=summary)
        try:
            return await run.call(nodes.CRITIC, request, policies.IMAGE_CRITIC, summary=summary)
        except NodeFailed as err:
            if not patched(CHECKS_AFTER_FAILED_REVIEW):
                raise
            return await self._checks_after_failed_review(request, err, summary)

    async def _checks_after_failed_review(
        self, request: CriticRequest, failed: NodeFailed, summary: str
    ) -> QualityCheck:
        """The LLM's review failed for good: say so, and the rule checks answer, now and for the rest of the turn."""
        self._uses_llm = False
        message = f"LLM 质量审查失败，改用规则检查：{failed.cause}"[:300]
        self._turn.thought(CRITIC, message, level="warning", code=ErrorCode.AGENT_DEGRADED)
        checks = request.model_copy(update={"use_llm": False})
        check = await self._turn.run.call(
            nodes.CRITIC, checks, policies.IMAGE_CRITIC_CHECKS, summary=f"{summary} (checks)"
        )
        return check.model_copy(update={"llm_review_failed": True})
