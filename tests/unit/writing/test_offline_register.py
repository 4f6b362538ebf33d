"""The offline writer's setting register: `setting_register` reads modern, period or neutral from the project's
words, and the drafts of a modern, a wuxia, an empty and an English project keep to their register, with nothing
but the label line above the scene."""

import pytest

from activities.writing.offline.register import Pool, Register, setting_register
from activities.writing.offline_agents import compose
from activities.writing.story_facts import character_states
from models.writing.agents import AgentName
from models.writing.context import Passage, PreprocessingContext
from models.writing.intents import WritingIntent
from models.writing.projects import Chapter
from tests.unit.writing.test_offline_agents import CHAPTERS, request
from tests.unit.writing.test_story_facts import make_chapter, make_character

PERIOD_WORDS = ("剑", "马蹄", "衣襟", "墙头", "灯笼", "酒旗", "匾额", "城楼", "更夫", "师门", "城门")
MODERN_WORDS = ("手机", "出租车", "外套", "红绿灯", "霓虹", "车门", "地铁", "路灯", "招牌", "窗帘")
PROCESS_WORDS = ("接续：", "出场：", "文风参照：", "地点：", "技能：", "依据：", "已故（", "这一场写的是")
SKILLS = ("ActionSkill", "DialogueSkill", "PsychologySkill", "DescriptionSkill")
REQUESTS = [f"写第{n}场：林舟和周启在夜里见面" for n in range(1, 13)]

MODERN_CHAPTERS = [
    make_chapter(
        1, "雨夜", "林舟推开警局的门，雨水顺着帽檐滴落。苏念在档案室等他，手机屏幕还亮着。三年前，老陈死在雾港码头。"
    )
]
MODERN_CONTEXT = PreprocessingContext(
    characters=character_states(
        [make_character("林舟", "刑警，住在雾港的老公寓"), make_character("周启", "嫌疑人，码头仓库的老板")],
        MODERN_CHAPTERS,
    ),
    passages=[
        Passage(kind="world_note", ref_id="w1", title="雾港", text="海边小城，出租车在雨里排成一排。", score=1.0)
    ],
)


@pytest.mark.parametrize(
    ("texts", "register"),
    [
        (["林舟推开警局的门，掏出手机。", "他是刑警。"], "modern"),
        (["Mara, a retired detective, left her phone in the car."], "modern"),
        (["林舟拔剑出鞘，江湖上无人不知。", "客栈外传来马蹄声。"], "period"),
        (["The knight rode his horse to the castle."], "period"),
        (["他推开门，雨下得很大。"], "neutral"),
        ([], "neutral"),
        (["他掏出手机，看了一眼墙上的剑。"], "neutral"),
        (["A scar on his cheek, a carpet, a cardboard box."], "neutral"),
    ],
)
def test_the_register_is_the_side_with_more_cues(texts: list[str], register: Register) -> None:
    assert setting_register(texts) == register


def test_a_pool_gives_a_register_its_own_sentences_and_the_neutral_ones() -> None:
    pool = Pool(neutral=("n",), modern=("m",), period=("p",))
    assert (pool.of("modern"), pool.of("period"), pool.of("neutral")) == (("n", "m"), ("n", "p"), ("n",))


def drafts(context: PreprocessingContext | None, chapters: list[Chapter], texts: list[str]) -> list[str]:
    return [
        compose(
            request(AgentName.WRITER, WritingIntent.WRITE_CONTENT, t, context=context, skills=SKILLS), chapters
        ).text
        for t in texts
    ]


def test_a_modern_detective_story_gets_no_sword_no_horse_and_no_process_words() -> None:
    for draft in drafts(MODERN_CONTEXT, MODERN_CHAPTERS, REQUESTS):
        label, body = draft.split("\n\n", 1)
        assert label.startswith("【离线占位草稿·未接入大模型】") and "\n" not in label, label
        assert [w for w in PERIOD_WORDS if w in body] == [], body
        assert [w for w in PROCESS_WORDS if w in draft] == [], draft
        assert "林舟" in body and "周启" in body


def test_a_wuxia_story_keeps_its_period_details_and_gets_no_modern_ones() -> None:
    bodies = [d.split("\n\n", 1)[1] for d in drafts(None, CHAPTERS, [t.replace("周启", "沈青衣") for t in REQUESTS])]
    assert all(not [w for w in MODERN_WORDS if w in body] for body in bodies), bodies
    assert any(w in body for body in bodies for w in PERIOD_WORDS)


def test_with_no_cue_the_details_fit_both() -> None:
    for draft in drafts(None, [], REQUESTS):
        body = draft.split("\n\n", 1)[1]
        assert [w for w in PERIOD_WORDS + MODERN_WORDS if w in body] == [], body


def test_an_english_modern_story_gets_modern_details_and_only_its_label_above_the_scene() -> None:
    chapters = [make_chapter(1, "Harbor", "Mara walked into Greyhaven Docks. Tom was there, his phone in his hand.")]
    states = character_states([make_character("Mara", "a detective"), make_character("Tom", "a reporter")], chapters)
    context = PreprocessingContext(characters=states)
    texts = [f"Write scene {n}: Mara and Tom meet again at night" for n in range(1, 13)]
    for draft in drafts(context, chapters, texts):
        label, body = draft.split("\n\n", 1)
        assert label.startswith("[Offline placeholder draft") and "meet again at night" in label
        assert not any(w in draft for w in ("Cast:", "Setting:", "Request:", "what was asked"))
        assert not any(w in body.lower() for w in ("horse", "hoofbeat", "torch", "steel", "watchman")), body
