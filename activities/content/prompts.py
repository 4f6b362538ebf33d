"""The content run's prompts: the Supervisor's versioned system prompt (`prompts/supervisor_<version>.md`, seed
001 提示词要求: decision format, awareness of what is done, preconditions, fallback strategy, few-shot examples),
the state summary each of its turns reads, and the agents' own system prompts and inputs."""

import json
from functools import cache
from importlib import resources

from models.content.agents import AGENT_LABELS, AgentName, AgentRequest, ClarificationAnswer, ContentView, QualityFix
from models.content.artifacts import DIMENSION_LABELS, PLATFORM_LABELS, QUALITY_THRESHOLD
from models.content.options import LENGTH_LABELS, body_range
from models.content.state import ContentMessage
from models.content.turns import Progress

SUPERVISOR_PROMPT_VERSION = "v1"
MESSAGE_LINE_CHARS = 300
"""Each of the run's messages, as the Supervisor reads it, is cut to this many characters."""
_MARKS = {"done": "✅ 已完成", "missing": "❌ 未完成", "stale": "⚠️ 过期（依赖已更新，需要重做）"}


@cache
def supervisor_prompt(version: str = SUPERVISOR_PROMPT_VERSION) -> str:
    """The Supervisor's system prompt, as shipped in `activities/content/prompts/`."""
    return resources.files("activities.content").joinpath(f"prompts/supervisor_{version}.md").read_text("utf-8")


def state_summary(view: ContentView, progress: Progress, messages: list[ContentMessage] | None = None) -> str:
    """What the Supervisor reads each turn: the topic, each stage's status, the review, the limits, and the run's
    latest messages (each cut to `MESSAGE_LINE_CHARS`)."""
    lines = [f"用户话题：{view.topic}"]
    if view.platform:
        lines.append(f"平台：{PLATFORM_LABELS[view.platform]}")
    lines.append(f"参考图：{len(view.reference_images)} 张；用户资料：{'有' if view.evidence_notes_ref else '无'}")
    lines.append("当前状态：")
    lines += [
        f"- {agent.value}（{AGENT_LABELS[agent]}）：{_MARKS[status]}" for agent, status in progress.artifacts.items()
    ]
    if view.quality_scores is not None and view.review_feedback is not None:
        scores = view.quality_scores.model_dump(by_alias=True)
        verdict = "通过" if progress.review_passed else "未通过"
        lines.append(f"审核：{verdict}；质量分 {json.dumps(scores, ensure_ascii=False)}")
    fallback = progress.quality_fallback
    if fallback is not None:
        lines.append(
            f"质量回退建议：{fallback.dimension.value}={fallback.score:.2f} 偏低 → {fallback.agent.value}"
            f"（该维度已回退 {progress.fallbacks_tried.get(fallback.dimension.value, 0)} 次）"
        )
    lines.append(
        f"可以结束：{'是' if progress.can_end else '否'}；配图完成：{'是' if progress.images_complete else '否'}"
    )
    lines.append(f"iterationCount={progress.iteration_count} / maxIterations={progress.max_iterations}")
    if progress.recent_decisions:
        lines.append(f"最近的路由：{' → '.join(progress.recent_decisions)}")
    if progress.corrections:
        lines.append(f"你被纠正过的决策：{json.dumps(progress.corrections, ensure_ascii=False)}")
    if messages:
        lines.append("最近的对话：")
        lines += [f"- [{m.role}:{m.name}] {m.content[:MESSAGE_LINE_CHARS]}" for m in messages]
    lines.append("请输出下一步的 JSON 决策。")
    return "\n".join(lines)


AGENT_PROMPTS: dict[AgentName, str] = {
    AgentName.BRIEF_COMPILER: (
        "你是 brief 编译 Agent：把用户的话题整理成创意 brief（平台、受众、语气、3–5 条核心信息、行动号召）。"
        "平台不明确且还没问过时，可以只返回 clarification（一个问题和选项）而不写 brief；"
        "用户的回答在输入的 answers 里。"
    ),
    AgentName.RESEARCH_EVIDENCE: (
        "你是调研取证 Agent：用 search_notes 和 extract_facts 在用户提供的资料里找证据（数据、事实、引语、建议），"
        "再给出证据列表和正文大纲（bodyBlocks，id 为 b1、b2…）。不要编造数据；来自你自己知识的条目 source 写 model。"
    ),
    AgentName.LAYOUT_PLANNER: (
        "你是版式规划 Agent：根据平台、大纲和用户的版式偏好，决定文字块与图片位的顺序、图片数量和比例。"
    ),
    AgentName.IMAGE_PLANNER: (
        "你是配图规划 Agent：为版式的每个图片位写一个生成计划（plan_id 为 p1、p2…，slot 与图片位一致），"
        "提示词要具体，并与参考图分析的主色、明暗和构图一致。"
    ),
    AgentName.WRITER: (
        "你是文案 Agent：根据 brief、证据和大纲写出适合该平台的标题、分段正文（blocks 的 id 与大纲一致）和话题标签。"
    ),
    AgentName.IMAGE: (
        "你是图片生成 Agent：读帖子全文，对每个还没有图片的计划调用 generate_image（每次一个 plan_id；"
        "需要时用 prompt 参数按全文把画面写得更具体）。全部生成后不再调用工具，用一句话说明结果。"
    ),
    AgentName.REVIEW: (
        "你是审核 Agent：检查图文并给五个维度打分（0–1）：infoDensity、textImageAlignment、styleConsistency、"
        "readability、platformFit；任一维度低于 0.6 即不通过，在 issues 里写明原因。"
    ),
}


def agent_input(request: AgentRequest) -> str:
    """The agent's input: the Supervisor's guidance, what the review found in the dimension it is to fix (a quality
    fallback), the user's answers, the tone and length they asked for, and what the run has so far (JSON)."""
    view = request.view.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True)
    parts = [f"Supervisor 的指导：{request.guidance or '（无）'}"]
    if request.focus_areas:
        parts.append(f"重点：{'、'.join(request.focus_areas)}")
    if request.context_from_previous:
        parts.append(f"上一步：{request.context_from_previous}")
    parts += fix_lines(request.fix)
    parts += _answers(request.answers) + _users_options(request.view)
    if not request.may_ask:
        parts.append("不要再向用户提问：缺的信息请自行合理假设，并写进 assumptions。")
    parts.append(f"当前内容（JSON）：{json.dumps(view, ensure_ascii=False)}")
    return "\n".join(parts)


def fix_lines(fix: QualityFix | None) -> list[str]:
    """A quality fallback's task: the failed dimension, its score and the review's findings, one line each."""
    if fix is None:
        return []
    label = DIMENSION_LABELS[fix.dimension]
    lines = [
        f"质量回退：审核的{label}（{fix.dimension.value}）得分 {fix.score:.2f}，低于 {QUALITY_THRESHOLD}。审核发现："
    ]
    lines += [f"- {finding}" for finding in fix.findings] or ["- （审核没有写明原因）"]
    lines.append("请针对这些发现修改你的产出，不要原样重复上一版。")
    return lines


def _users_options(view: ContentView) -> list[str]:
    lines = [f"用户要求的语气：{view.tone}"] if view.tone else []
    platform = view.creative_brief.platform if view.creative_brief else view.platform
    if view.length and platform:
        low, high = body_range(platform, view.length)
        lines.append(f"用户要求的篇幅：{LENGTH_LABELS[view.length]}，正文 {low}–{high} 字")
    return lines


def _answers(answers: list[ClarificationAnswer]) -> list[str]:
    return [f"用户对“{answer.question}”的回答：{answer.answer}" for answer in answers]
