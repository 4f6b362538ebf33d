"""The offline WorldBuilderAgent: setting notes in four sections (geography, power system, factions, rules),
built on the places, world notes, characters and plot loops the context holds and on the request's words; in
English when the request is (`world_en`)."""

from activities.common.offline_labels import offline_label
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.names import invented_places
from activities.writing.offline.world_en import world_notes_en
from models.writing.agents import AgentResult

LABEL = offline_label("世界观笔记")
MAX_PLACES = 4

_SYSTEMS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "cultivation",
        ("修仙", "修炼", "灵力", "灵气", "丹药", "宗门", "cultivat"),
        "修炼体系：引气入体、筑基、结丹三境，每进一境都要以心境为代价，境界越高越难回头。",
    ),
    (
        "magic",
        ("魔法", "法术", "魔力", "咒", "magic", "spell", "wizard"),
        "魔法体系：施法要借助与自身相契的媒介，法力来自誓约，违背誓约的人会失去它。",
    ),
    (
        "technology",
        ("科技", "赛博", "星际", "机甲", "义体", "cyber", "starship", "android"),
        "技术体系：能力来自改造与装备，越强的义体越依赖稀缺的能源，也越容易被控制者追踪。",
    ),
    (
        "martial",
        ("剑", "刀", "江湖", "武功", "内力", "武学", "sword", "martial"),
        "武学体系：内力靠经年苦修，招式各有门派传承，重伤或心乱都会让内力失控。",
    ),
)
"""A power system's key (`world_en` has its English note), the words that suggest it, its note."""
_DEFAULT_SYSTEM = "力量来源：稀少而有代价，得到它的人总要放弃另一样东西，这是世界所有冲突的根。"
_PLACE_NOTES = (
    "依山而建，消息在茶馆里传得比驿马还快",
    "终年多雾，外人进去容易、出来难",
    "商旅往来的要道，也是各方眼线最多的地方",
    "老辈人说那里埋着旧朝的秘密，平日少有人去",
)
_FACTION_KINDS = ("守备府", "商会", "旧部")


def _power_system(grounding: Grounding) -> tuple[str, str] | None:
    """The key and note of the power system the request and passages suggest; None when they suggest none."""
    material = " ".join([grounding.request.text, *(p.text for p in grounding.context.passages)]).lower()
    return next(((key, note) for key, words, note in _SYSTEMS if any(w in material for w in words)), None)


def build_world(grounding: Grounding) -> AgentResult:
    """The offline world-building notes (see the module)."""
    places = grounding.places()[:MAX_PLACES]
    system = _power_system(grounding)
    if grounding.english:
        return grounding.answer(world_notes_en(grounding, places, system[0] if system else None))
    places += invented_places(grounding.request.text, max(0, 2 - len(places)), taken=places)
    geography = [f"- {place}：{grounding.pick(_PLACE_NOTES, place)}。" for place in places]
    notes = [p for p in grounding.context.passages if p.kind == "world_note"]
    geography += [f"- 已有设定《{note.title}》：{note.text[:60]}" for note in notes[:2]]

    alive = [c.name for c in grounding.cast(3)]
    factions = []
    for index, place in enumerate(places[:3]):
        kind = _FACTION_KINDS[index % len(_FACTION_KINDS)]
        tie = f"，与{alive[index]}牵连最深" if index < len(alive) else ""
        factions.append(f"- {place}{kind}：掌握{place}的明面秩序{tie}。")
    dead = grounding.dead_names
    if dead:
        factions.append(f"- {dead[0]}的旧部：{dead[0]}已故，旧部散落各地，仍在追查当年的真相。")

    rules = [
        f"- 关于「{loop.title}」：{loop.description or '尚未揭开'}，揭开前不可让任何角色轻易知晓全貌。"
        for loop in grounding.open_loops()[:3]
    ]
    mortality = "、".join(dead) + "只能出现在回忆与传闻里" if dead else "死亡在这个世界是真实的代价"
    rules.append(f"- 已故之人不会复生：{mortality}。")

    lines = [
        LABEL,
        f"主题：{grounding.topic}",
        "一、地理",
        *geography,
        "二、力量体系",
        f"- {system[1] if system else _DEFAULT_SYSTEM}",
        "三、势力",
        *factions,
        "四、规则与禁忌",
        *rules,
    ]
    sources = grounding.source_titles()
    if sources:
        lines.append(f"参考：{'、'.join(sources)}")
    return grounding.answer("\n".join(lines))
