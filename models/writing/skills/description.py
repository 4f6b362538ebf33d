"""DescriptionSkill: scenery, setting, appearance and atmosphere; chosen by its words only (no context says
"describe this")."""

from models.writing.agents import AgentName
from models.writing.skills.skill import Skill, craft_rules

DESCRIPTION_SKILL = Skill(
    name="DescriptionSkill",
    title="环境/外貌/氛围描写",
    keywords=(
        *("描写", "描绘", "景色", "景物", "风景", "环境", "外貌", "长相", "容貌", "衣着", "氛围", "气氛"),
        *("画面", "天气", "五感", "街景", "夜景", "意境", "场景描写", "细节描写"),
        *("describ", "scenery", "landscape", "atmosphere", "ambience", "ambiance", "appearance", "sensory"),
        *("imagery", "backdrop", "weather", "vivid"),
    ),
    prompt=craft_rules(
        "这是一段环境/外貌/氛围描写。",
        (
            "选少数有代表性的细节，不罗列清单；每个细节都要服务于情绪、人物或情节。",
            "调动多种感官：视觉之外写声音、气味、温度、触感，让场景立起来。",
            "经由视点人物去看：他注意到什么、怎么形容，取决于他是谁、此刻在想什么，让描写带上情绪。",
            "空间有秩序：由远及近、由整体到局部，或跟随人物的移动展开，让读者知道东西在哪里。",
            "与设定一致：地名、建筑、季节、时代、器物、人物外貌以项目资料为准，不凭空改动。",
            "比喻要新鲜且合乎作品的时代和世界观，避开陈词滥调。",
            "控制篇幅：把描写嵌进人物的行动里，避免长段静止的说明拖慢节奏。",
        ),
    ),
    agents=frozenset({AgentName.WRITER, AgentName.WORLD_BUILDER}),
)
