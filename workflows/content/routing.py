"""Seed 001's routing rules as pure functions: `routeFromSupervisor()`, `checkBasicPreconditions()`, the four
`shouldContinue*` tables, `isQualityApproved()` and the quality fallback table. They read the state (or a turn)
and name the next node; the workflow records every transition, checked against the declared graph.

The Supervisor's LLM decides the route; code corrects only an obvious missing precondition (three rows), and
each correction is counted (`content.precondition_corrections`): frequent corrections mean the prompt needs
work, not that more rules are needed.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.content.agents import END, QUALITY_FALLBACK, AgentName, SupervisorDecision
    from models.content.artifacts import QUALITY_THRESHOLD, QualityDimension, QualityScores, is_quality_approved
    from models.content.post import images_complete
    from models.content.state import ContentState
    from models.content.turns import QualityFallback

SUPERVISOR: Final = "supervisor"
SUPERVISOR_TOOLS: Final = "supervisor_tools"
RESEARCH_TOOLS: Final = "research_evidence_tools"
IMAGE_TOOLS: Final = "image_tools"
IMAGE_TOOL_CALL_LIMIT = 10
"""Seed 001 `shouldContinueImage()`: after 10 tool calls the image loop returns to the Supervisor."""

RouteRule = Literal["no_decision", "end", "end_refused", "precondition", "decision"]


@dataclass(frozen=True)
class Route:
    """Where `routeFromSupervisor()` sends the run, by which rule, and why."""

    target: str
    """An agent's node, `supervisor`, or `END`."""
    rule: RouteRule
    reason: str


@dataclass(frozen=True)
class Precondition:
    """One row of `checkBasicPreconditions()`: the target, what it needs, and where to go without it."""

    target: AgentName
    needs: str
    fallback: AgentName


PRECONDITIONS: dict[AgentName, Precondition] = {
    AgentName.WRITER: Precondition(AgentName.WRITER, "creativeBrief", AgentName.BRIEF_COMPILER),
    AgentName.REVIEW: Precondition(AgentName.REVIEW, "generatedContent.body", AgentName.WRITER),
    AgentName.IMAGE: Precondition(AgentName.IMAGE, "imagePlans", AgentName.IMAGE_PLANNER),
}
"""Seed 001 `checkBasicPreconditions()`, row by row."""


def route_from_supervisor(decision: SupervisorDecision | None, state: ContentState) -> Route:
    """Seed 001's flowchart: no decision → the Supervisor again; END → end if the run can end, else the
    Supervisor again; a missing precondition → that row's fallback; otherwise the decision."""
    next_agent = decision.next_agent.strip() if decision is not None else ""
    if not next_agent:
        return Route(SUPERVISOR, "no_decision", "Supervisor 的回答里没有 next_agent：请它重新决策")
    if next_agent == END:
        if can_end(state):
            return Route(END, "end", "Supervisor 决定结束：正文和配图都已完成并经过审核")
        return Route(SUPERVISOR, "end_refused", f"还不能结束：{', '.join(missing_for_end(state))}")
    try:
        target = AgentName(next_agent)
    except ValueError:
        known = ", ".join(agent.value for agent in AgentName)
        return Route(SUPERVISOR, "no_decision", f"next_agent {next_agent[:40]!r} 不是已知节点（{known}, END）")
    fallback = check_basic_preconditions(target, state)
    if fallback is not None:
        row = PRECONDITIONS[target]
        return Route(fallback, "precondition", f"{target.value} 需要 {row.needs}，纠正到 {fallback.value}")
    return Route(target, "decision", decision.guidance[:200] if decision else "")


def corrected_again(route: Route, state: ContentState) -> Route | None:
    """A precondition correction whose fallback lacks its own precondition (review → writer, and no brief yet),
    corrected once more; None when the fallback can run."""
    if route.rule != "precondition":
        return None
    fallback = check_basic_preconditions(AgentName(route.target), state)
    if fallback is None:
        return None
    row = PRECONDITIONS[AgentName(route.target)]
    return Route(fallback, "precondition", f"{route.reason}；{route.target} 需要 {row.needs}，纠正到 {fallback.value}")


def check_basic_preconditions(target: AgentName, state: ContentState) -> AgentName | None:
    """The fallback node when `target`'s precondition is obviously missing, else None (only three rows)."""
    if target is AgentName.WRITER and state.creative_brief is None:
        return AgentName.BRIEF_COMPILER
    if target is AgentName.REVIEW and not (state.generated_content and state.generated_content.body.strip()):
        return AgentName.WRITER
    if target is AgentName.IMAGE and not state.image_plans:
        return AgentName.IMAGE_PLANNER
    return None


def missing_for_end(state: ContentState) -> list[str]:
    """What the run still lacks before it may end: the post's text, its images, a review of both."""
    missing = []
    if not (state.generated_content and state.generated_content.body.strip()):
        missing.append("正文未完成")
    if not images_complete(state):
        missing.append("配图未完成")
    if state.review_feedback is None:
        missing.append("尚未审核")
    return missing


def end_refused_after_review(
    state: ContentState, table: Mapping[QualityDimension, AgentName] = QUALITY_FALLBACK
) -> str | None:
    """Why END may not follow the last review yet (the Supervisor prompt's own rule: after a failed review, END
    only once a dimension has fallen back twice and still fails), or None when it may (also when the review failed
    with every dimension above the threshold: there is no fallback to try)."""
    review = state.review_feedback
    if review is None:
        return None
    if should_continue_review(review.approved, state.quality_scores) == END:
        return None
    if quality_fallback(state.quality_scores, state.metadata.cannot_improve, table) is None:
        return None
    tried = max(state.metadata.fallbacks_tried.values(), default=0)
    if tried >= FALLBACKS_BEFORE_END:
        return None
    return f"审核未通过，且还没有维度回退过 {FALLBACKS_BEFORE_END} 次（最多 {tried} 次）：请按质量回退建议继续"


FALLBACKS_BEFORE_END = 2
"""Fallbacks of one dimension after which END may follow a failed review (the Supervisor prompt's rule)."""


def can_end(state: ContentState) -> bool:
    """Whether END may be taken: the post has its text and every planned image, and it was reviewed."""
    return not missing_for_end(state)


def should_continue_supervisor(tool_calls: int) -> Literal["supervisor_tools", "route"]:
    """Seed 001 `shouldContinueSupervisor()`."""
    return SUPERVISOR_TOOLS if tool_calls else "route"


def should_continue_research(tool_calls: int) -> Literal["research_evidence_tools", "supervisor"]:
    """Seed 001 `shouldContinueResearch()`."""
    return RESEARCH_TOOLS if tool_calls else SUPERVISOR


def should_continue_image(complete: bool, tool_calls: int, calls_made: int) -> Literal["image_tools", "supervisor"]:
    """Seed 001 `shouldContinueImage()`: done → Supervisor; tool calls under the limit → image tools; else back."""
    if complete:
        return SUPERVISOR
    if tool_calls and calls_made < IMAGE_TOOL_CALL_LIMIT:
        return IMAGE_TOOLS
    return SUPERVISOR


def should_continue_review(approved: bool, scores: QualityScores | None) -> Literal["END", "supervisor"]:
    """Seed 001 `shouldContinueReview()`: approved and `isQualityApproved()` → END; anything else → Supervisor."""
    if approved and scores is not None and is_quality_approved(scores):
        return END
    return SUPERVISOR


def quality_fallback(
    scores: QualityScores | None,
    skip: Collection[str] = (),
    table: Mapping[QualityDimension, AgentName] = QUALITY_FALLBACK,
) -> QualityFallback | None:
    """Seed 001 质量回退逻辑: the lowest dimension under the threshold and the agent its row of `table` names (ties:
    the dimensions' order), leaving out the dimensions in `skip` (those that cannot improve); None when none is
    left."""
    if scores is None:
        return None
    low = [
        (scores.score(d), index, d)
        for index, d in enumerate(QualityDimension)
        if scores.score(d) < QUALITY_THRESHOLD and d.value not in skip
    ]
    if not low:
        return None
    score, _, dimension = min(low)
    return QualityFallback(dimension=dimension, score=score, agent=table[dimension])
