"""The nodes of the agents without tools (brief, reference intelligence, layout, image planning, writer, review):
one activity each, on the LLM with its offline agent as the degrade path. An agent writes only its own state
fields (`workflows.content.patches`); one that needs the user asks (the clarification node); the review decides,
by seed 001's `shouldContinueReview()`, whether the run ends approved (an approval ends only a post that may end:
one whose planned images are not all drawn goes back to the Supervisor, behind `workflow.patched`). An agent with
a model streams its answer's readable text to the run (`content` events, behind
`patched(AGENTS_STREAM_TEXT)`)."""

from temporalio import workflow

from workflows import policies
from workflows.common.agent_stream import this_run
from workflows.common.patches import patched
from workflows.content.context import Asking, ContentRun
from workflows.content.fallbacks import CANNOT_IMPROVE, fallback_table, fix_for
from workflows.content.graph import CLARIFICATION
from workflows.content.patches import apply_patch
from workflows.content.routing import SUPERVISOR, missing_for_end, quality_fallback, should_continue_review

with workflow.unsafe.imports_passed_through():
    from models.content import nodes
    from models.content.agents import AGENT_LABELS, END, AgentName, AgentOutcome, AgentRequest
    from models.content.artifacts import is_quality_approved
    from models.content.events import ReviewResult
    from models.writing.language import written_in_english


AGENTS_STREAM_TEXT = "content-agents-stream-text"
"""`workflow.patched` id: an agent with a model streams its answer's text to the run (`content` events)."""
APPROVAL_ENDS_ONLY_A_COMPLETE_POST = "content-approval-ends-only-a-complete-post"
"""`workflow.patched` id: an approved review of a post whose images are not all drawn goes back to the Supervisor;
before it, the approval ended the run and finalize reported the post incomplete."""


class AgentNodes:
    """One node per agent without tools (`nodes.TOOLLESS_AGENTS`)."""

    def __init__(self, context: ContentRun) -> None:
        self._context = context

    async def agent(self, agent: AgentName) -> str:
        context = self._context
        state = context.state
        may_ask = state.clarification_rounds < context.input.max_clarification_rounds
        assignment = context.assignment
        request = AgentRequest(
            agent=agent,
            view=context.view(),
            guidance=assignment.guidance,
            focus_areas=assignment.focus_areas,
            context_from_previous=assignment.context_from_previous,
            answers=context.answers.get(agent, []),
            may_ask=may_ask,
            asked=list(state.agent_clarification_keys),
            use_llm=context.input.llm_configured and agent is not AgentName.REFERENCE_INTELLIGENCE,
            run_id=context.run_id,
            fix=fix_for(state, agent),
        )
        if request.use_llm and patched(AGENTS_STREAM_TEXT):
            request = request.model_copy(update={"stream": this_run()})
        with context.stream.taking(agent):
            outcome = await self._call(request)
        question = outcome.clarification
        if question is not None and question.key not in state.agent_clarification_keys:
            assumed = any(answer.key == question.key for answer in context.answers.get(agent, []))
            if not assumed:
                context.asking = Asking(agent, question, allowed=may_ask)
                return CLARIFICATION
        fields = apply_patch(state, agent, outcome.patch, unchanged_kept=patched(CANNOT_IMPROVE))
        context.agent_finished(agent, outcome.summary, fields, outcome.offline)
        if agent is AgentName.REVIEW:
            return self._after_review()
        return SUPERVISOR

    async def _call(self, request: AgentRequest) -> AgentOutcome:
        spec = nodes.AGENTS[request.agent]
        label = AGENT_LABELS[request.agent]
        if request.agent is AgentName.REFERENCE_INTELLIGENCE:
            return await self._context.call_or_fail(
                spec, request, policies.REFERENCE_ANALYSIS, summary=f"{label}: measure"
            )
        if not request.use_llm:
            return await self._context.call_or_fail(
                spec, request, policies.CONTENT_AGENT_OFFLINE, summary=f"{label} (offline)"
            )
        return await self._context.call_with_degrade(
            spec,
            request,
            request.model_copy(update={"use_llm": False}),
            (policies.CONTENT_AGENT, policies.CONTENT_AGENT_OFFLINE),
            summary=label,
            node=request.agent,
        )

    def _after_review(self) -> str:
        """Seed 001 `shouldContinueReview()`, with the quality fallback the Supervisor is told about."""
        context = self._context
        feedback, scores = context.state.review_feedback, context.state.quality_scores
        assert feedback is not None and scores is not None, "the review writes its feedback and scores"
        fallback = quality_fallback(scores, context.state.metadata.cannot_improve, fallback_table())
        result = ReviewResult(
            feedback=feedback, scores=scores, quality_approved=is_quality_approved(scores), fallback=fallback
        )
        context.events.emit("review_result", AgentName.REVIEW, result)
        if should_continue_review(feedback.approved, scores) == END:
            missing = missing_for_end(context.state)
            if missing and patched(APPROVAL_ENDS_ONLY_A_COMPLETE_POST):
                context.thought(AgentName.REVIEW, f"审核通过，但还不能结束：{'，'.join(missing)}")
                return SUPERVISOR
            english = written_in_english(context.input.topic)
            said = "Approved by the review: every quality dimension passes" if english else "审核通过，各质量维度均达标"
            return context.end("approved", said)
        if fallback is not None:
            context.thought(
                AgentName.REVIEW,
                f"审核未通过：{fallback.dimension.value}={fallback.score:.2f} 偏低 → 建议回退到 {fallback.agent.value}",
                level="warning",
            )
        return SUPERVISOR
