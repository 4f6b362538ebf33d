"""ActionSkill: fight and chase scenes; chosen by its words, or when the best retrieved chapter passages around
the request are themselves fight scenes (the writer is continuing one)."""

from models.writing.agents import AgentName
from models.writing.context import PreprocessingContext
from models.writing.skills.skill import Skill, craft_rules, keyword_pattern

_COMBAT_MARKERS = keyword_pattern(
    (
        *("剑", "刀", "拳", "枪", "箭", "砍", "劈", "斩", "踢", "刺向", "刺入", "一掌", "出掌", "格挡", "闪避"),
        *("闪身", "鲜血", "出招", "招式", "攻势", "交手", "厮杀", "打斗", "战斗", "搏斗", "杀"),
        *("sword", "blade", "punch", "kick", "slash", "stabb", "parry", "parried", "dodg", "lunge", "blood"),
        *("fist", "strike", "struck", "attack", "fight", "battle"),
    )
)
FIGHT_SCENE_MARKERS = 3
"""A passage with at least this many different combat words reads as a fight scene."""
PASSAGES_CONSIDERED = 3
"""The best-scored chapter passages: the text around what the writer asked about."""


def is_fight_scene(text: str) -> bool:
    """True when `text` uses at least `FIGHT_SCENE_MARKERS` different combat words."""
    return len({word.lower() for word in _COMBAT_MARKERS.findall(text)}) >= FIGHT_SCENE_MARKERS


def _continues_a_fight(context: PreprocessingContext) -> str | None:
    chapters = [passage for passage in context.passages if passage.kind == "chapter"]
    best = sorted(chapters, key=lambda passage: -passage.score)[:PASSAGES_CONSIDERED]
    fights = sum(is_fight_scene(passage.text) for passage in best)
    if fights * 2 > len(best):
        return f"检索到的 {len(best)} 段相关章节中 {fights} 段是打斗场面"
    return None


ACTION_SKILL = Skill(
    name="ActionSkill",
    title="动作/打斗描写",
    keywords=(
        *("打斗", "战斗", "厮杀", "交手", "对决", "决斗", "搏斗", "格斗", "激战", "比武", "过招", "动作戏"),
        *("武打", "拼杀", "肉搏", "枪战", "作战", "追杀", "追逐", "伏击", "围攻", "刀光剑影"),
        *("fight", "battle", "combat", "duel", "brawl", "skirmish", "swordfight", "gunfight", "ambush"),
        *("chase", "clash", "showdown", "melee", "sparring", "action scene", "martial"),
    ),
    prompt=craft_rules(
        "这是一段动作/打斗场面。",
        (
            "先立空间：交代谁在哪里、手里有什么、地形和环境能被怎样利用，让读者始终跟得上双方的位置。",
            "节奏靠句子：出招、格挡、反击用短句和有力的动词推进，少堆形容词和套话（“刀光剑影”“电光火石”之类）。",
            "每个回合都要有变化：局势反转、受伤、兵器脱手、环境突变或计策得逞，不写无差别的你来我往。",
            "写出代价和身体感受：疼痛、喘息、虎口发麻、视线模糊、体力下降，让胜负有分量。",
            "打法即人物：出手方式体现性格和处境（谨慎、狠辣、留手、拼命）；战斗中只穿插关键的一句话或一个念头，不打断节奏。",
            "能力以设定为准：武功、法术、科技的强度和限制遵循项目资料，不临时发明越级能力；受伤的角色带伤作战。",
            "收在结果和余波上：谁占了上风、付出了什么、局面因此怎样改变。",
        ),
    ),
    agents=frozenset({AgentName.WRITER, AgentName.BRAINSTORM}),
    trigger=_continues_a_fight,
)
