"""The offline WriterAgent: a placeholder scene draft of several paragraphs, built from the project and the request,
labelled 【离线占位草稿·未接入大模型】 and the request it stands in for (in English when the request is: `writer_en`).
Below the label there is only the scene: no notes on how it was made.

It sets the scene in one of the project's own places (`Grounding.places`: its world notes, characters and
chapters; none is made up when it names none), with details of the story's register (`register`: no sword in a
modern detective story, no car in a wuxia one, neither when nothing tells), and picks its sentences by a hash of
the request, so another request gets another draft.

It continues from the retrieved passage furthest into the story (its closing sentence, as the moment the lead
still carries, unless the lead is new to the story), puts on stage the living characters the request names (else
the most mentioned ones) or the character a chain's previous step designed (the narrator introduces them),
narrates what the chain points to (the chosen brainstorm option's event, the writer's own idea, the outline
section's summary: `direction`) as part of the scene, writes an action, dialogue, inner-life or description
paragraph for each active skill, and borrows the first style sample's quotation marks, ellipses and sentence
length. A dead (已故) character is only ever remembered: it never speaks or acts.
"""

from dataclasses import dataclass
from itertools import pairwise

from activities.common.offline_labels import offline_label
from activities.writing.offline.direction import Direction, chain_direction, designed
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.register import Pool, Register, setting_register
from activities.writing.offline.writer_en import english_draft
from activities.writing.story_facts import split_sentences
from models.writing.agents import AgentResult
from models.writing.skills.action import ACTION_SKILL
from models.writing.skills.description import DESCRIPTION_SKILL
from models.writing.skills.dialogue import DIALOGUE_SKILL
from models.writing.skills.psychology import PSYCHOLOGY_SKILL

LABEL = offline_label("占位草稿")
SHORT_SENTENCE_CHARS = 14
"""A style sample whose sentences average fewer characters than this is written in short sentences."""

_NEWCOMERS = {
    "反派": "日后与众人为敌的，正是这个人",
    "导师": "日后肯把一身本事倾囊相授的，正是这个人",
    "感情线角色": "日后叫人牵肠挂肚的，正是这个人",
    "主角": "往后的事，都要从这个人说起",
    "配角": "日后在要紧处搭上一把手的，正是这个人",
}
"""The offline designer's roles, as the narrator says what the newcomer will be."""

_TIMES = Pool(
    neutral=("天色将明未明", "雨后的黄昏", "夜已经深了", "正午的日头正毒", "晨雾还没有散尽"),
    modern=("末班地铁已经开走了", "路灯一盏接一盏亮起来"),
    period=("更夫刚敲过三更", "城门落锁的时辰已经过了"),
)
_SCENERY = Pool(
    neutral=(
        "风从{place}的方向吹来，带着潮湿的土腥味",
        "{place}的路面积着昨夜的雨水，映出灰白的天色",
        "{place}檐下的灯晃了晃，光影在地上碎成一片",
        "{place}远处传来几声犬吠，很快又被风声吞没",
    ),
    modern=("{place}路口的红绿灯在雨里一明一灭", "{place}那边的霓虹招牌坏了一半，亮着的几个字忽闪忽闪"),
    period=("{place}的酒旗被风扯得猎猎作响", "{place}的石板路上，一盏灯笼在檐下摇晃"),
)
_SKIES = Pool(neutral=("天边压着厚厚的云，像随时要塌下来", "云层裂开一道缝，漏下一线冷光", "空气闷得像一口扣住的锅"))
_STEPS = (
    ("脚下的碎石发出细小的声响", "每走一步，都觉得暗处有一双眼睛跟着"),
    ("鞋底踩过积水，声音在空处回荡", "身后的脚步声停了，又响了起来"),
    ("一路上没有遇见一个人", "越是安静，越让人心里发毛"),
)
_RESOLVES = Pool(neutral=("深吸一口气，把所有犹豫都压回心底", "攥紧了拳头，指节发白", "把那句到了嘴边的话又咽了回去"))
_MEMORIES = Pool(
    neutral=("出发前的那个夜晚，灯下的影子被拉得很长", "很多年前那场没有说完的争吵", "第一次走进这里时的样子"),
    modern=("手机里那条一直没有回的消息",),
    period=("师门里那盏彻夜不熄的油灯",),
)
_TURNS = Pool(
    neutral=("就在这时，巷口传来急促的脚步声", "忽然，远处亮起一点光，又迅速熄灭"),
    modern=("就在这时，口袋里的手机震了一下", "一辆出租车在路边停下，车灯扫过墙面"),
    period=("一阵马蹄声由远及近，在不远处停了下来", "忽然，墙头掠过一道黑影，瓦片轻轻一响"),
)
_GESTURES = Pool(
    neutral=("在路口停下脚步", "抬头望向远处", "回头看了一眼来时的路"),
    modern=("把手机屏幕按灭，揣回兜里", "竖起外套的领子"),
    period=("把手按在剑柄上", "拢了拢被风吹乱的衣襟"),
)
_DETAILS = Pool(
    neutral=("墙角的青苔爬得很高，不知多久没人打理",),
    modern=("街边的旧招牌褪了色，字迹只剩一半", "楼上只有一扇窗还亮着，窗帘后面有人影晃过"),
    period=("檐下的旧匾额褪了色，字迹只剩一半", "远处的城楼隐在云里，只剩一个模糊的轮廓"),
)
_OPENING_LINES = ("你还是来了。", "有些事，总得有人去做。", "别回头，往前走就是。", "我等这一天，等了很久。")
_ACTIONS = Pool(
    neutral=("话音未落，{lead}已经动了：侧身、错步、抬手，一气呵成",),
    modern=(
        "{lead}一把扣住对方的手腕，反拧到背后，把人按在墙上",
        "{lead}抢上一步，打落对方手里的东西，顺势把人按在车门上",
    ),
    period=(
        "{lead}脚下一点，身形掠过墙头，落地时带起一片尘土",
        "{lead}猛地拔剑，寒光贴着对方的衣袖划过，逼得那人连退三步",
    ),
)


@dataclass(frozen=True)
class _Voice:
    """What the draft borrows from the first style sample."""

    open_quote: str = "“"
    close_quote: str = "”"
    short_sentences: bool = False
    ellipsis: bool = False


def _voice(grounding: Grounding) -> _Voice:
    samples = grounding.context.style_samples
    if not samples:
        return _Voice()
    text = samples[0].text
    sentences = split_sentences(text)
    average = sum(map(len, sentences)) / len(sentences) if sentences else SHORT_SENTENCE_CHARS
    quotes = ("「", "」") if "「" in text else ('"', '"') if '"' in text and "“" not in text else ("“", "”")
    return _Voice(*quotes, short_sentences=average < SHORT_SENTENCE_CHARS, ellipsis="……" in text)


def _prose(clauses: list[str], voice: _Voice) -> str:
    """Clauses as sentences: one sentence each in a short-sentence voice, else up to three to a sentence, as
    evenly as they go (four clauses make two sentences of two)."""
    if voice.short_sentences:
        return "".join(f"{c}。" for c in clauses)
    count = -(-len(clauses) // 3)
    bounds = [round(i * len(clauses) / count) for i in range(count + 1)]
    return "".join("，".join(clauses[a:b]) + "。" for a, b in pairwise(bounds))


def _line(voice: _Voice, words: str, speaker: str, verb: str) -> str:
    if voice.ellipsis and words.endswith("。"):
        words = words[:-1] + "……"
    return f"{voice.open_quote}{words}{voice.close_quote}{speaker}{verb}。"


def _directed(direction: Direction) -> str:
    """The chain's direction as the draft narrates it: the newcomer introduced, then what happens."""
    sentences = []
    if direction.newcomer is not None:
        name, role = direction.newcomer
        sentences.append(f"没有人认得{name}。{_NEWCOMERS.get(role, f'只听说，{name}是个{role}')}。")
    if direction.event:
        sentences.append(_sentence(direction.event))
    return "".join(sentences)


def _cast(grounding: Grounding) -> list[str]:
    newcomer = designed(grounding)
    names = [newcomer[0]] if newcomer else []
    names += [c.name for c in grounding.cast(2) if c.name not in names]
    names += [n for n in grounding.quoted_names() if n not in names and n not in grounding.dead_names]
    return names[:2] or ["主人公"]


@dataclass(frozen=True)
class _Scene:
    """Who and where: the lead, the partner (if any), the dead the request names, the place, the story's register,
    the open loop."""

    lead: str
    partner: str | None
    remembered: list[str]
    place: str
    """One of the project's own places; empty when it names none (no place is made up)."""
    register: Register
    """Whether the draft's details are modern, period or neutral (`setting_register` of the project and request)."""
    loop: str | None


def _scene(grounding: Grounding) -> _Scene:
    lead, *others = _cast(grounding)
    places, loops = grounding.places(), grounding.open_loops()
    return _Scene(
        lead=lead,
        partner=others[0] if others else None,
        remembered=[c.name for c in grounding.named() if c.name in grounding.dead_names],
        place=grounding.pick(places[:3], "place") if places else "",
        register=setting_register(grounding.story_texts()),
        loop=loops[0].title if loops else None,
    )


def _continuation(grounding: Grounding) -> str:
    """The last sentence no dead character acts in of the chapter the draft continues ('' when there is none)."""
    passage = grounding.latest_passage()
    if passage is not None and passage.chapter_position is not None:
        return grounding.closing_sentence(passage.text)
    return grounding.closing_sentence(grounding.chapters[-1].content) if grounding.chapters else ""


def _sentence(text: str) -> str:
    return text if text.endswith(("。", "！", "？", "…", "」", "”")) else text + "。"


def _paragraphs(grounding: Grounding, scene: _Scene, voice: _Voice) -> list[str]:
    lead, partner, place, skills = scene.lead, scene.partner, scene.place, set(grounding.skills)

    def pick(pool: Pool, salt: str) -> str:
        return grounding.pick(pool.of(scene.register), salt)

    direction = chain_direction(grounding)
    newcomer = direction.newcomer is not None and direction.newcomer[0] == lead
    closing = "" if newcomer else _continuation(grounding)
    where = place or "四下里"
    opening = [pick(_TIMES, "time"), f"{where}静得出奇", f"{lead}{pick(_GESTURES, 'gesture')}"]
    paragraphs = [_prose(opening, voice) + (f"先前那一幕还压在{lead}心头：{_sentence(closing)}" if closing else "")]
    directed = _directed(direction)
    if directed:
        paragraphs.append(directed)
    scenery = [
        pick(_SCENERY, "scenery").format(place=place or "远处"),
        f"{lead}闻得到雨水和泥土混在一起的气味",
        pick(_SKIES, "sky"),
    ]
    if DESCRIPTION_SKILL.name in skills:
        scenery += [pick(_DETAILS, "detail"), "更远处，天和地的边界隐在雾里，看不分明"]
    paragraphs.append(_prose(scenery, voice))
    step, unease = grounding.pick(_STEPS, "steps")
    movement = [f"{lead}沿着{place}的路往前走" if place else f"{lead}往前走", step, unease, "却始终没有回头"]
    paragraphs.append(_prose(movement, voice))
    turn = [pick(_TURNS, "turn"), f"{lead}屏住呼吸，手心里全是汗", "来的会是谁，又为何偏偏是此刻"]
    paragraphs.append(_prose(turn, voice))
    if partner is not None:
        paragraphs.append(_line(voice, grounding.pick(_OPENING_LINES, "line"), partner, "说"))
        reply = f"{scene.loop}的事，你查到哪一步了？" if scene.loop else "你既然来了，就说吧。"
        paragraphs.append(_line(voice, reply, lead, "低声道"))
    else:
        paragraphs.append(_line(voice, "再往前一步，就知道了。", lead, "低声道") + "没有人回答，只有风声。")
    if DIALOGUE_SKILL.name in skills:
        paragraphs.append(_line(voice, "我不会再退了。", lead, "说"))
        paragraphs.append(_line(voice, "那就走到底吧。", partner or "暗处有人", "答"))
    if ACTION_SKILL.name in skills:
        paragraphs.append(_prose([pick(_ACTIONS, "action").format(lead=lead), "胜负只在一瞬之间"], voice))
    inner = [f"{lead}心里清楚，回头的路早就断了", "该来的总会来，躲是躲不掉的"]
    inner += [f"{lead}想起{pick(_MEMORIES, 'memory')}"]
    inner += [f"{lead}想起了{name}，那个人已经不在了" for name in scene.remembered]
    if PSYCHOLOGY_SKILL.name in skills:
        inner += ["恐惧像一根细线，一头系在胸口，一头系在看不见的地方", f"可{lead}还是往前迈了一步"]
    paragraphs.append(_prose(inner, voice))
    paragraphs.append(_prose([f"{lead}{pick(_RESOLVES, 'resolve')}", "不管前面等着的是什么，这一步总要迈出去"], voice))
    hidden = f"就藏在{place}深处" if place else "就在不远处"
    hook = f"而「{scene.loop}」的谜底，也许{hidden}" if scene.loop else "夜色渐浓，谁也不知明天会怎样"
    paragraphs.append(_prose([hook, "风又起了，吹得人心里发紧"], voice))
    return paragraphs


def write(grounding: Grounding) -> AgentResult:
    """The offline writer's draft (see the module); in English when the request is (`writer_en`)."""
    scene, voice = _scene(grounding), _voice(grounding)
    if grounding.english:
        direction = chain_direction(grounding)
        return grounding.answer(
            english_draft(grounding, scene.lead, scene.partner, scene.place, scene.register, scene.loop, direction)
        )
    paragraphs = _paragraphs(grounding, scene, voice)
    return grounding.answer(f"{LABEL}{grounding.topic}\n\n" + "\n\n".join(paragraphs))
