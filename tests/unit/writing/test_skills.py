"""The writing agents' skills and base prompts (seed 002 Req 8): each skill from its words in Chinese and English
and from the preprocessing context, the order and the cap of the choice, the prompt with skills injected, and a
base prompt for every agent and every SimpleAgent intent."""

import pytest

from models.writing.agents import AgentName
from models.writing.context import CharacterState, Passage, PreprocessingContext, StyleExcerpt
from models.writing.intents import WORKFLOW_FOR_INTENT, WorkflowKind, WritingIntent
from models.writing.prompts import BASE_PROMPTS, SIMPLE_PROMPTS, base_prompt
from models.writing.skills import MAX_SKILLS, SKILLS, enhanced_system_prompt, select_skills
from models.writing.skills.action import ACTION_SKILL, is_fight_scene
from models.writing.skills.description import DESCRIPTION_SKILL
from models.writing.skills.dialogue import DIALOGUE_SKILL
from models.writing.skills.psychology import PSYCHOLOGY_SKILL
from models.writing.skills.skill import Skill

WRITER = AgentName.WRITER

PHRASINGS: dict[str, list[str]] = {
    "ActionSkill": [
        "写一场林舟和黑衣人在屋顶上的打斗",
        "续写两军在城下厮杀的场面",
        "他们在擂台上交手，帮我写出来",
        "Write the sword fight on the bridge",
        "Draft a battle between the two fleets",
        "the combat in chapter 3 feels flat, rewrite it",
    ],
    "PsychologySkill": [
        "写她得知父亲死讯后的内心挣扎",
        "描写主角此刻的心理活动",
        "加一段他的独白，表现愧疚",
        "Show how Mara feels after the funeral",
        "Write his inner monologue before the trial",
        "I want more of her thoughts while she waits",
    ],
    "DialogueSkill": [
        "写林舟和师父的一段对话",
        "写两人在茶馆里争吵",
        "帮我写一场商队和山贼的谈判",
        "Write a dialogue between the queen and the spy",
        "a heated argument between the sisters",
        "Their conversation at dinner should reveal the secret",
    ],
    "DescriptionSkill": [
        "描写一下长安城的夜景",
        "写一段雨后山谷的景色",
        "补充女主的外貌描写",
        "Describe the city at dawn",
        "Add some atmosphere to the opening in the abandoned mine",
        "more vivid scenery when they reach the coast",
    ],
}

UNRELATED = [
    "帮我总结第三章",
    "给主角起个名字",
    "续写下一段",
    "列出所有出现的地名",
    "Summarize chapter 2",
    "Continue the story",
    "What should I call the capital city?",
    "This is really a sample text",
]


def _names(text: str, context: PreprocessingContext | None = None, agent: AgentName = WRITER) -> list[str]:
    return [choice.skill.name for choice in select_skills(text, context, agent)]


@pytest.mark.parametrize(("skill_name", "text"), [(name, text) for name, texts in PHRASINGS.items() for text in texts])
def test_each_skill_is_selected_by_its_words(skill_name: str, text: str) -> None:
    choices = {choice.skill.name: choice.reason for choice in select_skills(text, None, WRITER)}

    assert skill_name in choices
    assert choices[skill_name].startswith("keyword ")


@pytest.mark.parametrize("text", UNRELATED)
def test_unrelated_requests_select_no_skill(text: str) -> None:
    assert select_skills(text, None, WRITER) == []
    assert select_skills(text, PreprocessingContext(), WRITER) == []


def test_a_keyword_choice_names_the_word_as_written() -> None:
    [choice] = select_skills("写一场林舟和黑衣人的打斗", None, WRITER)
    assert (choice.skill, choice.reason) == (ACTION_SKILL, "keyword 打斗")

    [english] = select_skills("Describe the harbour", None, WRITER)
    assert (english.skill, english.reason) == (DESCRIPTION_SKILL, "keyword describe")


def test_english_keywords_start_a_word() -> None:
    assert _names("The fighter rests") == ["ActionSkill"]
    assert _names("Talking it over") == ["DialogueSkill"]
    assert _names("a refight near an unfeeling wall, with some overtalk") == []


def test_description_comes_after_the_specific_skills() -> None:
    assert _names("描写一场打斗") == ["ActionSkill", "DescriptionSkill"]
    assert _names("Describe the duel") == ["ActionSkill", "DescriptionSkill"]


def test_at_most_three_skills_without_duplicates() -> None:
    text = "描写他们打斗之后的对话和她内心的挣扎"

    names = _names(text)

    assert len(names) == MAX_SKILLS
    assert len(set(names)) == len(names)
    assert names == ["ActionSkill", "PsychologySkill", "DialogueSkill"]


def test_skills_serve_only_their_agents() -> None:
    text = "写一段打斗后的对话，描写夜景和她的心理"

    assert _names(text, agent=AgentName.CONSISTENCY) == []
    assert _names(text, agent=AgentName.PLANNER) == []
    assert _names(text, agent=AgentName.SIMPLE) == []
    assert _names(text, agent=AgentName.CHARACTER) == ["PsychologySkill", "DialogueSkill"]
    assert _names(text, agent=AgentName.WORLD_BUILDER) == ["DescriptionSkill"]
    assert _names(text, agent=AgentName.BRAINSTORM) == ["ActionSkill", "PsychologySkill"]


# ---- context triggers ----


def _character(status: str | None, name: str = "林舟") -> CharacterState:
    return CharacterState(character_id=name, name=name, description="青云门弟子", status=status)


@pytest.mark.parametrize(
    "status", ["重伤", "得知师父已故，悲痛欲绝", "被师兄背叛", "grieving her brother", "badly wounded"]
)
def test_a_weighed_down_character_calls_for_psychology(status: str) -> None:
    context = PreprocessingContext(characters=[_character("健在"), _character(status, name="苏念")])

    [choice] = select_skills("续写下一段", context, WRITER)

    assert choice.skill is PSYCHOLOGY_SKILL
    assert choice.reason == f"context: 苏念的状态是「{status}」"


@pytest.mark.parametrize("status", [None, "健在", "刚刚突破到筑基期", "in good spirits"])
def test_a_character_at_ease_calls_for_nothing(status: str | None) -> None:
    context = PreprocessingContext(characters=[_character(status)])

    assert select_skills("续写下一段", context, WRITER) == []


def _sample(text: str) -> StyleExcerpt:
    return StyleExcerpt(title="样本", text=text, source="sample")


def test_dialogue_heavy_style_samples_call_for_dialogue() -> None:
    context = PreprocessingContext(
        style_samples=[
            _sample("“你来了。”他说。\n“我来还剑。”她把剑放在桌上，“从此两清。”"),
            _sample('「走吧。」"Where to?" 「北边，去找那个人。」'),
        ]
    )

    [choice] = select_skills("续写下一段", context, WRITER)

    assert choice.skill is DIALOGUE_SKILL
    assert choice.reason.startswith("context: 风格样本中对白占 ")
    assert "（6 处引语）" in choice.reason


def test_narrative_style_samples_do_not_call_for_dialogue() -> None:
    narrative = "山路蜿蜒，雾气从谷底漫上来，他走了很久，直到看见那座破庙。" * 3
    few_quotes = narrative + "他只说了一句“走”。"

    for samples in ([_sample(narrative)], [_sample(few_quotes)], []):
        assert select_skills("续写下一段", PreprocessingContext(style_samples=samples), WRITER) == []


FIGHT = "他拔剑便刺，对方侧身闪避，反手一刀砍来，鲜血溅上石阶。两人交手数十招，剑气纵横。"
CALM = "清晨的集市人声鼎沸，卖花的姑娘把一篮茉莉摆在摊前，茶馆里飘出说书人的声音。"


def _passage(text: str, score: float, kind: str = "chapter") -> Passage:
    return Passage.model_validate({"kind": kind, "refId": f"p{score}", "title": "第三章", "text": text, "score": score})


def test_fight_scenes_around_the_request_call_for_action() -> None:
    context = PreprocessingContext(passages=[_passage(FIGHT, 0.9), _passage(CALM, 0.8), _passage(FIGHT, 0.7)])

    [choice] = select_skills("续写下一段", context, WRITER)

    assert choice.skill is ACTION_SKILL
    assert choice.reason == "context: 检索到的 3 段相关章节中 2 段是打斗场面"


def test_only_the_best_chapter_passages_count_as_around_the_request() -> None:
    calm_first = [_passage(CALM, 0.9), _passage(CALM, 0.8), _passage(CALM, 0.7)]
    far_fights = [_passage(FIGHT, 0.2), _passage(FIGHT, 0.1)]
    not_chapters = [_passage(FIGHT, 0.95, kind="world_note"), _passage(FIGHT, 0.94, kind="character")]

    assert select_skills("续写", PreprocessingContext(passages=[*far_fights, *calm_first]), WRITER) == []
    assert select_skills("续写", PreprocessingContext(passages=[*not_chapters, *calm_first]), WRITER) == []


def test_a_fight_scene_needs_several_combat_words() -> None:
    assert is_fight_scene(FIGHT)
    assert is_fight_scene("He parried the blade, dodged a kick and struck back.")
    assert not is_fight_scene("墙上挂着一把剑。")
    assert not is_fight_scene(CALM)


def test_the_writers_words_come_before_the_context_and_a_skill_is_chosen_once() -> None:
    context = PreprocessingContext(
        characters=[_character("重伤")],
        passages=[_passage(FIGHT, 0.9)],
    )

    choices = select_skills("写一段对话，两人刚刚打斗过", context, WRITER)

    assert [(choice.skill.name, choice.reason) for choice in choices] == [
        ("ActionSkill", "keyword 打斗"),
        ("DialogueSkill", "keyword 对话"),
        ("PsychologySkill", "context: 林舟的状态是「重伤」"),
    ]


def test_context_choices_are_capped_too() -> None:
    context = PreprocessingContext(
        characters=[_character("重伤")],
        passages=[_passage(FIGHT, 0.9)],
        style_samples=[_sample("“走。”“去哪？”“北边。”")],
    )

    assert _names("描写一下夜景", context) == ["DescriptionSkill", "ActionSkill", "PsychologySkill"]


# ---- the injected prompt ----


def test_the_enhanced_prompt_is_the_base_plus_a_section_per_skill() -> None:
    base = BASE_PROMPTS[WRITER]
    skills = [ACTION_SKILL, DIALOGUE_SKILL]

    prompt = enhanced_system_prompt(base, skills)

    assert prompt.startswith(base)
    for skill in skills:
        assert f"### {skill.title}（{skill.name}）\n{skill.prompt}" in prompt
    assert PSYCHOLOGY_SKILL.prompt not in prompt
    assert prompt.index(ACTION_SKILL.prompt) < prompt.index(DIALOGUE_SKILL.prompt)


def test_without_skills_the_base_prompt_is_unchanged() -> None:
    assert enhanced_system_prompt(BASE_PROMPTS[WRITER], []) == BASE_PROMPTS[WRITER]


@pytest.mark.parametrize("skill", SKILLS, ids=lambda skill: skill.name)
def test_every_skill_is_complete(skill: Skill) -> None:
    assert skill.name.endswith("Skill")
    assert skill.title
    assert any(word.isascii() for word in skill.keywords)
    assert any(not word.isascii() for word in skill.keywords)
    assert skill.prompt.count("\n") >= 4  # a situation line and at least four rules
    assert WRITER in skill.agents


def test_skill_names_are_unique() -> None:
    assert len({skill.name for skill in SKILLS}) == len(SKILLS) >= 4


# ---- base prompts ----

GROUNDING = "不得与之矛盾"


@pytest.mark.parametrize("agent", list(AgentName))
def test_every_agent_has_a_grounded_base_prompt(agent: AgentName) -> None:
    assert GROUNDING in BASE_PROMPTS[agent]


def test_simple_prompts_cover_exactly_the_simple_agent_intents() -> None:
    simple_intents = {intent for intent, kind in WORKFLOW_FOR_INTENT.items() if kind is WorkflowKind.SIMPLE_AGENT}

    assert set(SIMPLE_PROMPTS) == simple_intents
    assert len(set(SIMPLE_PROMPTS.values())) == len(SIMPLE_PROMPTS)
    for intent, prompt in SIMPLE_PROMPTS.items():
        assert GROUNDING in prompt
        assert base_prompt(AgentName.SIMPLE, intent) == prompt


@pytest.mark.parametrize("agent", list(AgentName))
@pytest.mark.parametrize("intent", list(WritingIntent))
def test_every_agent_and_intent_has_a_prompt(agent: AgentName, intent: WritingIntent) -> None:
    prompt = base_prompt(agent, intent)

    assert GROUNDING in prompt
    if agent is not AgentName.SIMPLE:
        assert prompt.startswith(BASE_PROMPTS[agent])


def test_an_agent_serving_another_intent_gets_its_focus() -> None:
    assert base_prompt(WRITER, WritingIntent.WRITE_CONTENT) == BASE_PROMPTS[WRITER]
    assert base_prompt(AgentName.CONSISTENCY, WritingIntent.CHECK_CONSISTENCY) == BASE_PROMPTS[AgentName.CONSISTENCY]

    style = base_prompt(AgentName.CONSISTENCY, WritingIntent.ANALYZE_STYLE)
    plot_loops = base_prompt(AgentName.PLANNER, WritingIntent.MANAGE_PLOTLOOP)

    assert style.endswith("。") and "本次任务：分析文风" in style
    assert "本次任务：管理伏笔" in plot_loops
    assert "本次任务：按上一步给出的大纲" in base_prompt(WRITER, WritingIntent.OUTLINE_TO_CHAPTER)
