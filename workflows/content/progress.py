"""What the Supervisor is told about the run (seed 001 提示词要求 2–4: which stages are done, what depends on what,
where a failed review points): each agent's output done, missing or stale, computed from the iteration that last
wrote it. Pure: the workflow computes it, the Supervisor's prompt and its offline policy read it."""

from temporalio import workflow

from workflows.content.routing import can_end, quality_fallback, should_continue_review

with workflow.unsafe.imports_passed_through():
    from models.content.agents import END, QUALITY_FALLBACK, AgentName
    from models.content.artifacts import QualityDimension
    from models.content.post import images_complete
    from models.content.state import ContentState
    from models.content.turns import ArtifactStatus, Progress

DEPENDS_ON: dict[AgentName, tuple[AgentName, ...]] = {
    AgentName.BRIEF_COMPILER: (),
    AgentName.RESEARCH_EVIDENCE: (AgentName.BRIEF_COMPILER,),
    AgentName.REFERENCE_INTELLIGENCE: (),
    AgentName.LAYOUT_PLANNER: (AgentName.RESEARCH_EVIDENCE,),
    AgentName.IMAGE_PLANNER: (AgentName.LAYOUT_PLANNER, AgentName.REFERENCE_INTELLIGENCE, AgentName.BRIEF_COMPILER),
    AgentName.WRITER: (AgentName.BRIEF_COMPILER, AgentName.RESEARCH_EVIDENCE),
    AgentName.IMAGE: (AgentName.IMAGE_PLANNER,),
    AgentName.REVIEW: (AgentName.WRITER, AgentName.IMAGE),
}
"""Whose output each agent works from: an output older than one of these is stale."""

RECENT_DECISIONS = 6


def artifact_status(agent: AgentName, state: ContentState) -> ArtifactStatus:
    written = state.metadata.written_at
    if agent is AgentName.REFERENCE_INTELLIGENCE and not state.reference_images:
        return "done"  # nothing to analyse
    if agent is AgentName.IMAGE and not images_complete(state):
        return "missing"
    if agent not in written:
        return "missing"
    since = max(written[agent], state.metadata.ran_at.get(agent.value, -1))
    if any(written.get(dependency, -1) > since for dependency in DEPENDS_ON[agent]):
        return "stale"
    return "done"


def progress(state: ContentState, table: dict[QualityDimension, AgentName] = QUALITY_FALLBACK) -> Progress:
    """Each agent's output done, missing or stale; where a failed review points, by the run's fallback `table`."""
    review_passed = (
        bool(state.review_feedback)
        and should_continue_review(
            state.review_feedback.approved if state.review_feedback else False, state.quality_scores
        )
        == END
    )
    routes = [route.routed_to for route in state.metadata.routes][-RECENT_DECISIONS:]
    return Progress(
        artifacts={agent: artifact_status(agent, state) for agent in AgentName},
        can_end=can_end(state),
        images_complete=images_complete(state),
        review_passed=review_passed,
        quality_fallback=None
        if review_passed
        else quality_fallback(state.quality_scores, state.metadata.cannot_improve, table),
        iteration_count=state.iteration_count,
        max_iterations=state.max_iterations,
        corrections=dict(state.metadata.precondition_corrections),
        recent_decisions=routes,
        fallbacks_tried=dict(state.metadata.fallbacks_tried),
    )
