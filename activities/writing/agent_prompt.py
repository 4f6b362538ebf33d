"""The user prompt an agent sends its LLM (seed 002 `Agent.buildUserPrompt()`): the writer's request, the story so
far (`activities.writing.story_so_far`), the project context from `metadata.preprocessingContext` and the chain so
far, as plain sections a model reads well; the caller adds its own sections after the story so far (the
conversation's recent turns, the chapter under revision)."""

from collections.abc import Sequence

from activities.writing.story_so_far import story_so_far
from models.writing.agents import AgentRequest
from models.writing.context import PreprocessingContext
from models.writing.projects import Chapter

MAX_CHAIN_STEP_CHARS = 4000
"""A previous chain step's output is cut to this in the prompt (the state keeps all of it)."""


def user_prompt(
    request: AgentRequest, context: PreprocessingContext, chapters: list[Chapter], extra: Sequence[str] = ()
) -> str:
    """The request, the story so far, the caller's `extra` sections, every non-empty part of the context, then the
    chain's earlier steps and the choice."""
    sections = [f"## 作者的请求\n{request.text}", *story_so_far(request, chapters), *extra]
    if context.passages:
        lines = [
            f"- [{p.title}{f' · 第{p.chapter_position}章' if p.chapter_position else ''}] {p.text}"
            for p in context.passages
        ]
        sections.append("## 项目中相关的内容（检索结果）\n" + "\n".join(lines))
    if context.characters:
        lines = [
            f"- {c.name}：{c.description}" + (f"（当前状态：{c.status}）" if c.status else "")
            for c in context.characters
        ]
        sections.append("## 角色与当前状态\n" + "\n".join(lines))
    if context.style_samples:
        sections.append("## 作者的文风样本\n" + "\n\n".join(s.text for s in context.style_samples))
    if context.archetypes:
        lines = [f"- {a.name}：{a.description}" for a in context.archetypes]
        sections.append("## 可参考的角色原型\n" + "\n".join(lines))
    if context.plot_loops:
        lines = [
            f"- {'未回收' if p.status == 'open' else '已回收'}：{p.title}：{p.description}" for p in context.plot_loops
        ]
        sections.append("## 伏笔状态\n" + "\n".join(lines))
    if context.preflight:
        lines = [f"- [{i.severity}] {i.message}" for i in context.preflight]
        sections.append("## 预检发现\n" + "\n".join(lines))
    chain = request.metadata.chain_context
    if chain is not None:
        for number, step in enumerate(chain.steps, start=1):
            sections.append(f"## 链式上一步 {number}（{step.agent}）的输出\n{step.text[:MAX_CHAIN_STEP_CHARS]}")
        if chain.selection:
            chosen = (
                next((o for o in chain.steps[-1].options if o.id == chain.selection), None) if chain.steps else None
            )
            described = f"{chosen.id}. {chosen.title}：{chosen.summary}" if chosen else chain.selection
            sections.append(f"## 作者的选择\n{described}")
    return "\n\n".join(sections)
