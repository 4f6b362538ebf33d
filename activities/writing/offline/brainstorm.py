"""The offline BrainstormAgent: exactly three directions, A (a head-on confrontation), B (an open plot loop or a
place's secret turns the story) and C (a choice of the heart), each built from the request, the living cast and
the open plot loops; the text lists them and asks the writer to pick one. A dead character appears only through
what they left behind, never acting. In English when the request is (`brainstorm_en`)."""

from activities.common.offline_labels import offline_label
from activities.writing.offline.brainstorm_en import brainstorm_text_en, options_en
from activities.writing.offline.grounding import Grounding
from models.writing.agents import AgentResult, BrainstormOption

LABEL = offline_label("方案")

_CONFRONTATIONS = ("摊牌", "对决", "当面对质")
_TURNS = ("真相反转", "旧案重提", "身份揭穿")
_CHOICES = ("去与留", "信与疑", "救与舍")


def brainstorm(grounding: Grounding) -> AgentResult:
    """The offline brainstorm (see the module)."""
    if grounding.english:
        english = options_en(grounding)
        return grounding.answer(brainstorm_text_en(grounding, english), options=english)
    topic = grounding.topic
    cast = [c.name for c in grounding.cast(2)] or ["主人公"]
    lead = cast[0]
    other = cast[1] if len(cast) > 1 else "暗处的对手"
    loops = grounding.open_loops()
    places = grounding.places()
    dead = grounding.dead_names

    confrontation = grounding.pick(_CONFRONTATIONS, "A")
    secret = loops[0].title if loops else f"{places[0]}的秘密" if places else "被掩盖的旧事"
    turn = grounding.pick(_TURNS, "B")
    choice = grounding.pick(_CHOICES, "C")
    legacy = f"，而{dead[0]}留下的遗物成了抉择的砝码" if dead else ""
    chapters = grounding.requested_chapters()
    where = f"第{chapters[0]}章里，" if chapters else ""
    options = [
        BrainstormOption(
            id="A",
            title=f"正面{confrontation}：{lead}与{other}",
            summary=f"{where}{lead}不再回避，与{other}{confrontation}；冲突摆上台面，故事节奏随之加快。",
        ),
        BrainstormOption(
            id="B",
            title=f"暗线翻转：{secret}",
            summary=f"{where}「{secret}」突然有了新线索，{turn}让{lead}此前的判断全部落空。",
        ),
        BrainstormOption(
            id="C",
            title=f"情感抉择：{lead}的{choice}",
            summary=f"{where}{lead}必须在{choice}之间做出选择{legacy}；代价由{other}承担。",
        ),
    ]
    lines = [LABEL, f"围绕“{topic}”，给你三个方向："]
    lines += [f"{o.id}. {o.title}——{o.summary}" for o in options]
    lines.append("请回复 A、B 或 C 选一个方向（也可以直接写下你自己的想法），我会据此展开成文。")
    return grounding.answer("\n".join(lines), options=options)
