"""Quality fallbacks that end (issue 29 item 1): a fallback taken is remembered (`PendingFallback`) and judged
once its agent ran: when that agent's output came back the same, or the next review scores the dimension no
higher, the dimension cannot improve that way. Its fallback is not taken again (`routing.quality_fallback` skips
it), and a failed review whose low dimensions all cannot improve ends the run (`cannot_improve`) with a reason
per dimension the user can read, instead of spending the iterations up to `maxIterations`.

The agent a fallback runs is told what to fix (`fix_for`: the dimension, its score and the review's findings, on its
request), and the table a run uses (`fallback_table`) sends readability to the writer, behind
`patched(READABILITY_TO_WRITER)`: runs started before keep seed 001's table.

Pure but for the patch checks: the Supervisor's node calls it, behind `patched(CANNOT_IMPROVE)`
(docs/durable-changes.md)."""

import re

from temporalio import workflow

from workflows.common.patches import patched

with workflow.unsafe.imports_passed_through():
    from models.content.agents import (
        AGENT_LABELS,
        QUALITY_FALLBACK,
        SEED_QUALITY_FALLBACK,
        AgentName,
        QualityFix,
    )
    from models.content.artifacts import DIMENSION_LABELS, QUALITY_THRESHOLD, QualityDimension
    from models.content.language import AGENT_LABELS_EN, DIMENSION_LABELS_EN
    from models.content.state import ContentState, PendingFallback
    from models.content.turns import QualityFallback

CANNOT_IMPROVE = "content-quality-cannot-improve"
"""`workflow.patched` id: unchanged outputs are not stale, fallbacks are judged, and a run whose failing
dimensions cannot improve ends with why."""
READABILITY_TO_WRITER = "content-readability-to-writer"
"""`workflow.patched` id: the quality fallback table sends readability to the writer, not the image planner."""
FINDINGS = 8
"""At most this many findings reach the agent."""
_FINDING_SEPARATOR = re.compile(r"[；;\n]+")


def fallback_table() -> dict[QualityDimension, AgentName]:
    """The quality fallback table of this run: `QUALITY_FALLBACK`, or seed 001's for runs started before it."""
    return QUALITY_FALLBACK if patched(READABILITY_TO_WRITER) else SEED_QUALITY_FALLBACK


def fix_for(state: ContentState, agent: AgentName) -> QualityFix | None:
    """What `agent` is to fix when it runs as the pending quality fallback of this iteration: the dimension, its
    score and the review's findings for it (its `findings` sentence split at its clauses; a model review without
    findings: its issues that name the dimension); None otherwise."""
    pending = state.metadata.fallback_pending
    if pending is None or pending.agent is not agent or pending.iteration != state.iteration_count:
        return None
    review = state.review_feedback
    found: list[str] = []
    if review is not None:
        measured = review.findings.get(pending.dimension.value, "")
        found = [part.strip() for part in _FINDING_SEPARATOR.split(measured) if part.strip()]
        if not found:
            names = (pending.dimension.value, DIMENSION_LABELS[pending.dimension])
            found = [issue for issue in review.issues if any(name in issue for name in names)]
    return QualityFix(dimension=pending.dimension, score=pending.score, findings=[f[:300] for f in found[:FINDINGS]])


def remember(state: ContentState, fallback: QualityFallback) -> None:
    """The run was sent back to `fallback.agent` for `fallback.dimension` in this iteration."""
    state.metadata.fallback_pending = PendingFallback(
        dimension=fallback.dimension, score=fallback.score, agent=fallback.agent, iteration=state.iteration_count
    )


def judge(state: ContentState, *, english: bool = False) -> None:
    """Judge the pending fallback once it can be: its agent's output unchanged → cannot improve; else, once a
    review came after it, a score no higher than before → cannot improve; a higher one clears it. The reason is in
    English for an English post."""
    metadata = state.metadata
    pending = metadata.fallback_pending
    if pending is None or metadata.ran_at.get(pending.agent.value, -1) < pending.iteration:
        return
    label = AGENT_LABELS_EN[pending.agent] if english else AGENT_LABELS[pending.agent]
    if metadata.written_at.get(pending.agent.value, -1) < pending.iteration:
        why = f"the {label} gave back the same result" if english else f"回退到{label}后，它给出的结果与之前相同"
    elif metadata.ran_at.get(AgentName.REVIEW.value, -1) <= pending.iteration:
        return
    else:
        score = state.quality_scores.score(pending.dimension) if state.quality_scores else 0.0
        if score > pending.score:
            metadata.fallback_pending = None
            return
        why = f"still {score:.2f} after the {label} redid it" if english else f"回退到{label}后得分仍为 {score:.2f}"
    metadata.cannot_improve[pending.dimension.value] = why
    metadata.fallback_pending = None


def cannot_improve_message(state: ContentState, *, offline: bool, english: bool = False) -> str | None:
    """Why the run ends unapproved, per dimension, when the last review failed and every dimension under the
    threshold cannot improve (in English for an English post); None otherwise."""
    scores, review = state.quality_scores, state.review_feedback
    stuck = state.metadata.cannot_improve
    if scores is None or review is None:
        return None
    low = [dimension for dimension in QualityDimension if scores.score(dimension) < QUALITY_THRESHOLD]
    if not low or any(dimension.value not in stuck for dimension in low):
        return None
    reasons = []
    for dimension in low:
        found = review.findings.get(dimension.value, "")[:160]
        score = scores.score(dimension)
        if english:
            measured = f" ({found})" if found else ""
            reasons.append(f"{DIMENSION_LABELS_EN[dimension]} {score:.2f}{measured}: {stuck[dimension.value]}")
        else:
            measured = f"（{found}）" if found else ""
            reasons.append(f"{DIMENSION_LABELS[dimension]} {score:.2f}{measured}：{stuck[dimension.value]}")
    if english and offline:
        return f"Offline mode cannot improve this: {'; '.join(reasons)}. Add notes or connect a language model"
    if english:
        return f"Cannot improve further: {'; '.join(reasons)}. Add notes or change the request and try again"
    if offline:
        return f"离线模式无法改进：{'；'.join(reasons)}。请补充笔记/接入模型"
    return f"无法继续改进：{'；'.join(reasons)}。请补充笔记或调整要求后重试"
