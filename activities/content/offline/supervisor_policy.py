"""The offline Supervisor: a deterministic policy over the run's progress that makes the decisions the prompt asks
the LLM for (seed 001's normal order, redoing what is stale, the quality fallback table), in the same JSON
decision format. Used when no LLM is configured, or when the LLM failed for good."""

from models.content.agents import AGENT_LABELS, END, AgentName, ContentView, SupervisorDecision
from models.content.turns import Progress

ORDER = (
    AgentName.BRIEF_COMPILER,
    AgentName.RESEARCH_EVIDENCE,
    AgentName.REFERENCE_INTELLIGENCE,
    AgentName.LAYOUT_PLANNER,
    AgentName.IMAGE_PLANNER,
    AgentName.WRITER,
    AgentName.IMAGE,
    AgentName.REVIEW,
)
"""Seed 001's normal order, as the Supervisor's prompt states it."""
FALLBACK_TRIES = 2
"""A quality dimension's fallback is taken at most this often; then the run ends with what it has."""

_GUIDANCE = {
    AgentName.BRIEF_COMPILER: ("把话题整理成 brief；平台不明确时询问用户", ["平台", "受众", "核心信息"]),
    AgentName.RESEARCH_EVIDENCE: ("在用户资料里检索证据，提炼数据和可操作建议，给出正文大纲", ["数据", "事实", "建议"]),
    AgentName.REFERENCE_INTELLIGENCE: ("测量参考图的主色、明暗和构图，供配图对齐风格", ["主色", "构图"]),
    AgentName.LAYOUT_PLANNER: ("按平台和大纲规划图文版式", ["图片位", "比例"]),
    AgentName.IMAGE_PLANNER: ("为每个图片位写生成计划，风格与参考图一致", ["画面", "风格"]),
    AgentName.WRITER: ("基于 brief、证据和大纲写正文，强调重点信息", ["重点信息", "行动号召"]),
    AgentName.IMAGE: ("按计划生成全部配图", ["配图"]),
    AgentName.REVIEW: ("审核图文的五个质量维度", ["质量"]),
}


def decide(progress: Progress, view: ContentView) -> SupervisorDecision:
    """The next agent: the first stage missing or stale; then END once reviewed and approved; after a failed
    review, the fallback of its lowest dimension (at most `FALLBACK_TRIES` times each), else END."""
    for agent in ORDER:
        status = progress.artifacts[agent]
        if status != "done":
            guidance, focus = _GUIDANCE[agent]
            if status == "stale":
                guidance = f"依赖的产出已更新，重新生成：{guidance}"
            return SupervisorDecision(
                next_agent=agent.value, guidance=guidance, context_from_previous=_previous(progress), focus_areas=focus
            )
    if progress.review_passed:
        return SupervisorDecision(next_agent=END, guidance="审核已通过", context_from_previous=_previous(progress))
    fallback = progress.quality_fallback
    if fallback is not None and progress.fallbacks_tried.get(fallback.dimension.value, 0) < FALLBACK_TRIES:
        return SupervisorDecision(
            next_agent=fallback.agent.value,
            guidance=f"{fallback.dimension.value} 得分 {fallback.score:.2f} 偏低，请针对它改进",
            context_from_previous=f"review_agent：{fallback.dimension.value}={fallback.score:.2f}",
            focus_areas=[fallback.dimension.value],
        )
    reason = "质量回退已用尽，按现有结果结束" if fallback is not None else "全部完成"
    return SupervisorDecision(next_agent=END, guidance=reason, context_from_previous=_previous(progress))


def _previous(progress: Progress) -> str:
    if not progress.recent_decisions:
        return ""
    last = progress.recent_decisions[-1]
    try:
        return f"{last}（{AGENT_LABELS[AgentName(last)]}）已完成"
    except ValueError:
        return last
