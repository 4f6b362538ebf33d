"""DialogueSkill: conversations, quarrels, negotiations; chosen by its words, or when the writer's style samples
are dialogue-heavy (much of their text is quoted speech)."""

import re

from models.writing.agents import AgentName
from models.writing.context import PreprocessingContext
from models.writing.skills.skill import Skill, craft_rules

_QUOTED = re.compile(r"“[^“”]*”|「[^「」]*」|『[^『』]*』|\"[^\"\n]*\"")
DIALOGUE_SHARE = 0.3
"""Samples with at least this share of their characters inside quotation marks are dialogue-heavy."""
MIN_QUOTES = 3
"""Fewer quoted lines than this are too few to say anything about the writer's habits."""


def _dialogue_heavy_samples(context: PreprocessingContext) -> str | None:
    texts = [sample.text for sample in context.style_samples]
    total = sum(map(len, texts))
    quotes = [quote for text in texts for quote in _QUOTED.findall(text)]
    if total == 0 or len(quotes) < MIN_QUOTES:
        return None
    share = sum(map(len, quotes)) / total
    if share < DIALOGUE_SHARE:
        return None
    return f"风格样本中对白占 {share:.0%}（{len(quotes)} 处引语）"


DIALOGUE_SKILL = Skill(
    name="DialogueSkill",
    title="对话/对白",
    keywords=(
        *("对话", "对白", "台词", "争吵", "吵架", "谈判", "交谈", "谈话", "聊天", "辩论", "质问", "审问"),
        *("寒暄", "说服", "交锋", "口角", "斗嘴"),
        *("dialogue", "dialog", "conversation", "argu", "banter", "negotiat", "interrogat", "talk", "quarrel"),
        *("debate",),
    ),
    prompt=craft_rules(
        "这是一段以对话为主的场景。",
        (
            "声音可辨：每个人物的用词、句子长短、口头禅、称谓符合其身份、年龄和时代，遮住名字也能认出是谁在说。",
            "每句都有目的：试探、隐瞒、施压、示好、回避，潜台词多于直说；对话要推进情节或改变人物关系。",
            "不做信息倾倒：避免“你也知道……”式的交代，背景信息拆散到冲突和追问里。",
            "标签从简：多用“说”或直接以动作代替对话标签，少堆“冷笑道”“怒吼道”。",
            "写出节奏：穿插动作、停顿、打断和沉默；争吵要逐步升级，并有一个转折点。",
            "沿用作者习惯：引号样式（“”或「」）、对白与叙述的比例参照风格样本。",
            "称呼与关系一致：人物之间的称呼、敬语和亲疏以项目资料中的人物关系为准。",
        ),
    ),
    agents=frozenset({AgentName.WRITER, AgentName.CHARACTER}),
    trigger=_dialogue_heavy_samples,
)
