"""The writing agents' skills, chosen at the workflow level (seed 002 Req 8): the registry, the choice for one
agent call, and the system prompt with the chosen skills' rules injected.

A skill is chosen for an agent it serves when the request names its kind of passage (a keyword: "打斗" selects
ActionSkill, Req 8.2) or when the preprocessing context calls for it (its trigger). The writer's words come
first, then the context; within each, the registry's order, which puts DescriptionSkill last because its words
("描写", "describe") are the most general. At most `MAX_SKILLS` are chosen; none leaves the base prompt as it
is (Req 8.4).

Pure and deterministic (no I/O, clock, randomness or environment): the writing workflow imports it.
"""

from collections.abc import Sequence

from models.writing.agents import AgentName
from models.writing.context import PreprocessingContext
from models.writing.skills.action import ACTION_SKILL
from models.writing.skills.description import DESCRIPTION_SKILL
from models.writing.skills.dialogue import DIALOGUE_SKILL
from models.writing.skills.psychology import PSYCHOLOGY_SKILL
from models.writing.skills.skill import Skill, SkillChoice

__all__ = ["MAX_SKILLS", "SKILLS", "Skill", "SkillChoice", "enhanced_system_prompt", "select_skills"]

SKILLS: tuple[Skill, ...] = (ACTION_SKILL, PSYCHOLOGY_SKILL, DIALOGUE_SKILL, DESCRIPTION_SKILL)
"""Every skill, in the order ties are broken."""
MAX_SKILLS = 3
SKILLS_HEADING = "## 本次启用的写作技能"


def select_skills(text: str, context: PreprocessingContext | None, agent: AgentName) -> list[SkillChoice]:
    """The skills for `agent` answering `text`, each with its reason: keyword choices first, then context ones."""
    candidates = [skill for skill in SKILLS if agent in skill.agents]
    by_keyword = [
        SkillChoice(skill, f"keyword {keyword}")
        for skill in candidates
        if (keyword := skill.keyword_in(text)) is not None
    ]
    chosen = {choice.skill.name for choice in by_keyword}
    by_context = [
        SkillChoice(skill, f"context: {why}")
        for skill in candidates
        if context is not None
        and skill.name not in chosen
        and skill.trigger is not None
        and (why := skill.trigger(context)) is not None
    ]
    return [*by_keyword, *by_context][:MAX_SKILLS]


def enhanced_system_prompt(base: str, skills: Sequence[Skill]) -> str:
    """`base` followed by one headed section per skill (Req 11.5); `base` itself when there are none."""
    if not skills:
        return base
    sections = [f"### {skill.title}（{skill.name}）\n{skill.prompt}" for skill in skills]
    return "\n\n".join((base, SKILLS_HEADING, *sections))
