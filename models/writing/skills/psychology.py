"""PsychologySkill: inner life (emotion, struggle, monologue); chosen by its words, or when a character in the
context is now in a state that weighs on them: grieving, injured, betrayed, lost."""

from models.writing.agents import AgentName
from models.writing.context import PreprocessingContext
from models.writing.skills.skill import Skill, craft_rules, keyword_pattern

_HEAVY_STATUS = keyword_pattern(
    (
        *("伤", "痛", "悲", "哀", "丧", "死", "亡", "已故", "去世", "牺牲", "遇害", "背叛", "叛变", "出卖"),
        *("失去", "失踪", "失忆", "昏迷", "囚", "崩溃", "绝望", "病"),
        *("injur", "wound", "hurt", "grie", "mourn", "betray", "dead", "died", "death", "deceased", "killed"),
        *("missing", "captive", "imprison", "coma", "heartbroken", "despair"),
    )
)
"""Words in a character's `status` that mean grief, injury, betrayal or loss."""


def _weighed_down_character(context: PreprocessingContext) -> str | None:
    for character in context.characters:
        if character.status and _HEAVY_STATUS.search(character.status):
            return f"{character.name}的状态是「{character.status}」"
    return None


PSYCHOLOGY_SKILL = Skill(
    name="PsychologySkill",
    title="心理/情绪描写",
    keywords=(
        *("心理", "内心", "挣扎", "独白", "情绪", "心情", "心境", "思绪", "心声", "感受", "情感", "纠结"),
        *("悲伤", "悲痛", "痛苦", "愧疚", "内疚", "恐惧", "不安", "崩溃", "绝望", "悔恨", "思念", "心路"),
        *("feel", "emotion", "inner", "internal", "thought", "psycholog", "grief", "grieving", "guilt"),
        *("regret", "despair", "anxi", "monologue", "introspect", "heartbreak", "mood"),
    ),
    prompt=craft_rules(
        "这是一段心理/情绪描写。",
        (
            "外化情绪：用具体的身体反应和动作呈现（指甲掐进掌心、反复读同一行字、忘了放下茶杯），少贴“他很悲伤”式的标签。",
            "独白贴合人物：用这个人物会用的词和思路，只写他此刻知道、在意的事，不替他做作者式的总结。",
            "写出拉扯：两种愿望、两种价值在较劲，情绪有起伏和转折，而不是一种情绪从头到尾。",
            "情绪有来由：衔接角色当前的状态和经历（受伤、丧亲、被背叛、失去），与此前章节的情感线保持连续。",
            "控制浓度：心理段落穿插在动作与对话之间，一次聚焦一个核心感受，避免大段说教式分析。",
            "落到行动：内心的变化要引出一个决定、一个动作或一句话，推动接下来的情节。",
        ),
    ),
    agents=frozenset({AgentName.WRITER, AgentName.CHARACTER, AgentName.BRAINSTORM}),
    trigger=_weighed_down_character,
)
