"""The offline agents over a small project (two chapters; 林舟, 沈青衣 and the dead 苏念): every answer is labelled
offline, deterministic, grounded in the project and the request, and fills its structured fields; the writer never
has the dead character act."""

import re

import pytest

from activities.writing.consistency import check_draft
from activities.writing.intent_rules import extract_entities
from activities.writing.offline.grounding import place_names, without_acting
from activities.writing.offline_agents import compose
from activities.writing.story_facts import DECEASED, SURNAMES, character_states
from models.writing.agents import (
    AgentMetadata,
    AgentName,
    AgentRequest,
    AgentResult,
    ChainContext,
    ChainStepOutput,
)
from models.writing.context import (
    Archetype,
    ConsistencyIssue,
    Passage,
    PlotLoopState,
    PreprocessingContext,
    StyleExcerpt,
)
from models.writing.intents import PHASE_OF_INTENT, WORKFLOW_FOR_INTENT, IntentResult, WorkflowKind, WritingIntent
from tests.unit.writing.test_story_facts import make_chapter, make_character

A, W = AgentName, WritingIntent
OFFLINE_LABEL = re.compile(r"^【离线[^】]*·未接入大模型】")

CHAPTERS = [
    make_chapter(
        1,
        "初入青石城",
        "林舟背着行囊走进青石城。师父苏念站在城门下，笑着说：“记住，剑在人在。”林舟点头。"
        "城中传闻，北山的古塔里藏着一把断剑。",
    ),
    make_chapter(
        2,
        "夜雨",
        "那一夜雨下得很大。苏念为了掩护林舟，在北山脚下牺牲了。林舟跪在雨里，很久没有起身。"
        "沈青衣撑着伞走来，递给他一块玉佩。",
    ),
]
CHARACTERS = [
    make_character("林舟", "少年剑客，黑发，蓝眼睛。"),
    make_character("苏念", "林舟的师父，剑术高超。"),
    make_character("沈青衣", "神秘女子，来历不明。"),
]
STATES = character_states(CHARACTERS, CHAPTERS)
LOOPS = [
    PlotLoopState(
        plot_loop_id="l1", title="断剑之谜", description="北山古塔里的断剑", status="open", planted_in_chapter=1
    ),
    PlotLoopState(plot_loop_id="l2", title="玉佩来历", description="沈青衣的玉佩", status="open", planted_in_chapter=2),
    PlotLoopState(plot_loop_id="l3", title="城门之约", description="已了结", status="resolved", resolved_in_chapter=2),
]
CONTEXT = PreprocessingContext(
    passages=[
        Passage(kind="chapter", ref_id="ch2", title="夜雨", text=CHAPTERS[1].content, chapter_position=2, score=0.9),
        Passage(
            kind="chapter", ref_id="ch1", title="初入青石城", text=CHAPTERS[0].content, chapter_position=1, score=0.5
        ),
    ],
    characters=STATES,
    style_samples=[StyleExcerpt(title="雨夜", text="雨停了。她没有走。「你等谁？」他问。", source="sample")],
    archetypes=[
        Archetype(archetype_id="trickster", name="骗子", description="搅局者", score=0.2),
        Archetype(archetype_id="mentor", name="导师", description="引路人", traits=["睿智", "克制"], score=0.8),
    ],
    plot_loops=LOOPS,
)


def request(
    agent: AgentName,
    intent: WritingIntent,
    text: str,
    *,
    context: PreprocessingContext | None = CONTEXT,
    skills: tuple[str, ...] = (),
    chain: ChainContext | None = None,
) -> AgentRequest:
    routed = IntentResult(
        intent=intent, confidence=0.9, phase=PHASE_OF_INTENT[intent], entities=extract_entities(text), source="rules"
    )
    metadata = AgentMetadata(preprocessing_context=context, skills=list(skills), chain_context=chain)
    return AgentRequest(
        agent=agent, owner="o", project_id="p1", text=text, intent=routed, workflow=WORKFLOW_FOR_INTENT[intent],
        metadata=metadata,
    )  # fmt: skip


def cjk_chars(text: str) -> int:
    return len(re.findall(r"[\u4e00-\u9fff]", text))


EVERY_AGENT = [
    (A.WRITER, W.WRITE_CONTENT, "续写林舟离开北山之后的故事"),
    (A.CHARACTER, W.PLAN_CHARACTER, "帮我设计一个反派"),
    (A.WORLD_BUILDER, W.PLAN_WORLD, "完善一下世界观"),
    (A.PLANNER, W.PLAN_OUTLINE, "规划接下来的大纲"),
    (A.CONSISTENCY, W.CHECK_CONSISTENCY, "检查一致性"),
    (A.BRAINSTORM, W.BRAINSTORM_AND_EXPAND, "给第三章想几个结局，选一个再写"),
    (A.SIMPLE, W.GENERAL_CHAT, "你好"),
    (A.SIMPLE, W.GENERATE_NAME, "给女主起个名字"),
    (A.SIMPLE, W.SUMMARIZE, "总结第二章"),
    (A.SIMPLE, W.EXTRACT_ENTITY, "提取出现的人物和地点"),
]


@pytest.mark.parametrize(("agent", "intent", "text"), EVERY_AGENT)
def test_every_answer_is_labelled_offline_and_deterministic(agent: AgentName, intent: WritingIntent, text: str) -> None:
    result = compose(request(agent, intent, text), CHAPTERS)
    assert OFFLINE_LABEL.match(result.text)
    assert (result.agent, result.offline, result.context_source) == (agent, True, "preprocessing")
    assert compose(request(agent, intent, text), CHAPTERS) == result


@pytest.mark.parametrize(("agent", "intent", "text"), EVERY_AGENT)
def test_without_a_context_every_agent_still_answers(agent: AgentName, intent: WritingIntent, text: str) -> None:
    result = compose(request(agent, intent, text, context=None), CHAPTERS)
    assert OFFLINE_LABEL.match(result.text)
    assert result.context_source == "none"
    assert len(result.text) > len(OFFLINE_LABEL.pattern)


# writer


def test_the_draft_continues_the_latest_passage_with_the_named_characters() -> None:
    result = compose(request(A.WRITER, W.WRITE_CONTENT, "写一段林舟和沈青衣在雨中的对话"), CHAPTERS)
    assert cjk_chars(result.text) >= 300
    assert "先前那一幕还压在林舟心头：沈青衣撑着伞走来，递给他一块玉佩。" in result.text, "the last chapter's close"
    assert "第2章" not in result.text and "那时的情形是" not in result.text, "no process words"
    assert "林舟" in result.text and "沈青衣" in result.text
    assert "断剑之谜" in result.text  # the first open plot loop
    assert "「" in result.text and "“" not in result.text.split("\n\n", 1)[1].split("先前那一幕")[0]


def test_without_a_style_sample_the_draft_quotes_with_curly_quotes() -> None:
    context = CONTEXT.model_copy(update={"style_samples": []})
    result = compose(request(A.WRITER, W.WRITE_CONTENT, "写林舟和沈青衣", context=context), CHAPTERS)
    assert "“" in result.text and "「再" not in result.text


def test_the_draft_never_lets_the_dead_character_act() -> None:
    for text in ("写林舟和苏念重逢的一场戏", "让苏念和林舟说几句话", "续写"):
        result = compose(request(A.WRITER, W.WRITE_CONTENT, text, skills=("ActionSkill", "DialogueSkill")), CHAPTERS)
        issues = check_draft(result.text, STATES)
        assert [i for i in issues if i.kind == "dead_character_acts"] == [], text
    named = compose(request(A.WRITER, W.WRITE_CONTENT, "写林舟和苏念重逢的一场戏"), CHAPTERS)
    assert "想起了苏念" in named.text


def test_skills_add_their_paragraphs() -> None:
    plain = compose(request(A.WRITER, W.WRITE_CONTENT, "写林舟"), CHAPTERS).text
    skilled = compose(
        request(A.WRITER, W.WRITE_CONTENT, "写林舟", skills=("ActionSkill", "DialogueSkill", "PsychologySkill")),
        CHAPTERS,
    ).text
    assert "胜负只在一瞬之间" in skilled and "胜负只在一瞬之间" not in plain
    assert skilled.count("「") == plain.count("「") + 2
    assert "恐惧像一根细线" in skilled and "恐惧像一根细线" not in plain


def test_different_requests_give_different_drafts() -> None:
    first = compose(request(A.WRITER, W.WRITE_CONTENT, "写林舟"), CHAPTERS).text
    second = compose(request(A.WRITER, W.WRITE_CONTENT, "续写下一段"), CHAPTERS).text
    assert first != second


def brainstorm_chain(selection: str | None) -> ChainContext:
    ideas = compose(request(A.BRAINSTORM, W.BRAINSTORM_AND_EXPAND, "给第三章想几个结局，选一个再写"), CHAPTERS)
    step = ChainStepOutput(agent=A.BRAINSTORM, text=ideas.text, options=ideas.options)
    return ChainContext(workflow=WorkflowKind.BRAINSTORM_EXPAND, steps=[step], selection=selection)


def test_the_draft_follows_the_chosen_brainstorm_option() -> None:
    chain = brainstorm_chain("b")
    option = chain.steps[0].options[1]
    result = compose(request(A.WRITER, W.BRAINSTORM_AND_EXPAND, "展开", chain=chain), CHAPTERS)
    assert "\n\n「断剑之谜」突然有了新线索" in result.text and "让林舟此前的判断全部落空。" in result.text
    assert option.summary.startswith("第3章里，") and "第3章" not in result.text
    assert "展开" not in result.text.split("\n\n", 1)[1], "the scene happens; no process words"


def test_the_draft_follows_the_writers_own_words_at_the_choice() -> None:
    chain = brainstorm_chain("让沈青衣背叛林舟。")
    result = compose(request(A.WRITER, W.BRAINSTORM_AND_EXPAND, "展开", chain=chain), CHAPTERS)
    assert "\n\n沈青衣背叛林舟。\n\n" in result.text, "what the writer asked for happens in the scene"
    assert "作者" not in result.text and "展开" not in result.text.split("\n\n", 1)[1]


def test_the_draft_writes_the_outline_section_the_request_names() -> None:
    outline = compose(request(A.PLANNER, W.OUTLINE_TO_CHAPTER, "根据大纲写第四章"), CHAPTERS)
    chain = ChainContext(
        workflow=WorkflowKind.OUTLINE_TO_CHAPTER, steps=[ChainStepOutput(agent=A.PLANNER, text=outline.text)]
    )
    result = compose(request(A.WRITER, W.OUTLINE_TO_CHAPTER, "根据大纲写第四章", chain=chain), CHAPTERS)
    fourth = next(s for s in outline.sections if s.position == 4)
    assert f"\n\n{fourth.summary.split('；')[0]}。\n\n" in result.text, "the section's summary is what happens"
    scene = result.text.split("\n\n", 1)[1]
    assert "大纲" not in scene and fourth.title not in scene
    first = outline.sections[0]
    ask = f"根据大纲写第{first.position}章"
    opening = compose(request(A.WRITER, W.OUTLINE_TO_CHAPTER, ask, chain=chain), CHAPTERS).text
    assert "埋下新伏笔" in first.summary and "伏笔" not in opening, "the outline's note on its new loop is not story"


def test_the_draft_puts_the_character_a_chain_designed_on_stage() -> None:
    text = "设计一个叫「白芷」的女医师，然后写一场她和林舟的戏"
    design = compose(request(A.CHARACTER, W.CHARACTER_TO_SCENE, text), CHAPTERS)
    chain = ChainContext(
        workflow=WorkflowKind.CHARACTER_TO_SCENE, steps=[ChainStepOutput(agent=A.CHARACTER, text=design.text)]
    )
    result = compose(request(A.WRITER, W.CHARACTER_TO_SCENE, text, chain=chain), CHAPTERS)
    introduced = "\n\n没有人认得白芷。日后在要紧处搭上一把手的，正是这个人。\n\n"
    assert introduced in result.text, "the narrator introduces her, as what her role (配角) will be"
    assert "第一场戏" not in result.text and "压在白芷心头" not in result.text, "she carries no earlier chapter"
    assert "白芷低声道" in result.text and "林舟说" in result.text, "both are on stage"


def test_an_english_chain_puts_the_character_it_designed_on_stage() -> None:
    text = "Create a character and then write a scene with her"
    design = compose(request(A.CHARACTER, W.CHARACTER_TO_SCENE, text), CHAPTERS)
    (sketch,) = design.characters
    assert f"Name: {sketch.name}\nRole: {sketch.role}" in design.text
    chain = ChainContext(
        workflow=WorkflowKind.CHARACTER_TO_SCENE, steps=[ChainStepOutput(agent=A.CHARACTER, text=design.text)]
    )
    result = compose(request(A.WRITER, W.CHARACTER_TO_SCENE, text, chain=chain), CHAPTERS)
    assert result.text.startswith("[Offline placeholder draft") and sketch.name in result.text, "she is on stage"


def test_the_english_draft_follows_the_chosen_option_the_writers_idea_and_the_outline_section() -> None:
    """The English writer narrates the chain's direction too, as the Chinese one does: the chosen option's event,
    the writer's own idea and the outline section's summary happen in the scene, without the planner's notes."""
    ask = "Brainstorm three endings for chapter 3, then write one"
    ideas = compose(request(A.BRAINSTORM, W.BRAINSTORM_AND_EXPAND, ask), CHAPTERS)
    step = ChainStepOutput(agent=A.BRAINSTORM, text=ideas.text, options=ideas.options)
    for selection, happens in (
        ("b", '\n\nA new clue turns up in "断剑之谜", and '),
        ("Mara finds the ledger.", "\n\nMara finds the ledger.\n\n"),
    ):
        chain = ChainContext(workflow=WorkflowKind.BRAINSTORM_EXPAND, steps=[step], selection=selection)
        draft = compose(request(A.WRITER, W.BRAINSTORM_AND_EXPAND, ask, chain=chain), CHAPTERS).text
        assert happens in draft and "chapter 3" not in draft.split("\n\n", 1)[1], selection

    ask = "Write chapter 4 from the outline"
    outline = compose(request(A.PLANNER, W.OUTLINE_TO_CHAPTER, ask), CHAPTERS)
    fourth = next(s for s in outline.sections if s.position == 4)
    chain = ChainContext(
        workflow=WorkflowKind.OUTLINE_TO_CHAPTER, steps=[ChainStepOutput(agent=A.PLANNER, text=outline.text)]
    )
    draft = compose(request(A.WRITER, W.OUTLINE_TO_CHAPTER, ask, chain=chain), CHAPTERS).text
    happens = fourth.summary.split("; moves the thread")[0]
    assert f"\n\n{happens[0].upper()}{happens[1:]}.\n\n" in draft and "moves the thread" not in draft
    first = outline.sections[0]
    ask = f"Write chapter {first.position} from the outline"
    draft = compose(request(A.WRITER, W.OUTLINE_TO_CHAPTER, ask, chain=chain), CHAPTERS).text
    assert "plants a new thread" in first.summary and "plants a new thread" not in draft, "a note, not story"


def test_the_english_draft_introduces_the_character_a_chain_designed() -> None:
    text = "Create a villain and then write a scene with her"
    design = compose(request(A.CHARACTER, W.CHARACTER_TO_SCENE, text), CHAPTERS)
    (sketch,) = design.characters
    chain = ChainContext(
        workflow=WorkflowKind.CHARACTER_TO_SCENE, steps=[ChainStepOutput(agent=A.CHARACTER, text=design.text)]
    )
    draft = compose(request(A.WRITER, W.CHARACTER_TO_SCENE, text, chain=chain), CHAPTERS).text
    assert sketch.role == "antagonist"
    introduced = f"Nobody there knew {sketch.name} yet. One day {sketch.name} would stand against them all."
    assert f"\n\n{introduced}\n\n" in draft


# character


def test_a_new_character_has_a_fresh_name_the_best_archetype_and_ties_to_the_cast() -> None:
    result = compose(request(A.CHARACTER, W.PLAN_CHARACTER, "帮我设计一个反派"), CHAPTERS)
    (sketch,) = result.characters
    assert sketch.name not in {c.name for c in CHARACTERS}
    assert sketch.name.startswith(SURNAMES)
    assert (sketch.role, sketch.archetype) == ("反派", "导师")
    assert 1 <= len(result.relationships) <= 2
    assert {e.target for e in result.relationships} <= {c.name for c in CHARACTERS}
    assert all(e.source == sketch.name for e in result.relationships)
    assert f"姓名：{sketch.name}" in result.text and "导师" in result.text


def test_a_quoted_name_is_the_new_characters_name() -> None:
    result = compose(request(A.CHARACTER, W.PLAN_CHARACTER, "设计一个叫「白芷」的配角，她认识林舟"), CHAPTERS)
    assert result.characters[0].name == "白芷"
    assert [e.target for e in result.relationships] == ["林舟"]


def test_a_relationship_between_two_named_characters() -> None:
    result = compose(request(A.CHARACTER, W.DESIGN_RELATIONSHIP, "设计林舟和沈青衣的感情线"), CHAPTERS)
    assert result.characters == []
    assert [(e.source, e.target, e.kind) for e in result.relationships] == [("林舟", "沈青衣", "恋人")]


@pytest.mark.parametrize(
    ("intent", "text", "kind"),
    [
        (W.DESIGN_RELATIONSHIP, "设计林舟和沈青衣的关系：他们变成了宿敌", "宿敌"),
        (W.DESIGN_RELATIONSHIP, "林舟和沈青衣从师徒变成仇人，设计一下他们的关系", "仇人"),
        (W.PLAN_CHARACTER, "设计一个叫「白芷」的角色，她是林舟的盟友", "盟友"),
        (W.PLAN_CHARACTER, "Create a new character, once a friend who became an enemy of the hero", "enemy"),
        (W.PLAN_CHARACTER, "Design a new character who is an old friend of the hero", "old friend"),
    ],
)
def test_the_relationship_is_the_kind_the_request_names(intent: WritingIntent, text: str, kind: str) -> None:
    """The kind named after 变成/became when the request names a change, else the one it names."""
    result = compose(request(A.CHARACTER, intent, text), CHAPTERS)
    assert result.relationships[0].target in {"林舟", "沈青衣"}
    assert result.relationships[0].kind == kind
    assert f"（{kind}）" in result.text or f"({kind})" in result.text


# world builder, planner


def test_world_notes_are_grounded_in_places_loops_and_the_dead() -> None:
    text = compose(request(A.WORLD_BUILDER, W.PLAN_WORLD, "完善一下世界观"), CHAPTERS).text
    for section in ("一、地理", "二、力量体系", "三、势力", "四、规则与禁忌"):
        assert section in text
    assert "青石城" in text and "北山" in text and "断剑之谜" in text
    assert "武学体系" in text  # the chapters are about swords
    assert "苏念只能出现在回忆与传闻里" in text


def test_the_outline_starts_after_the_last_chapter_and_weaves_in_every_open_loop() -> None:
    result = compose(request(A.PLANNER, W.PLAN_OUTLINE, "规划接下来的大纲"), CHAPTERS)
    assert [s.position for s in result.sections] == [3, 4, 5]
    (new,) = result.plot_loops
    assert new.planted_in_chapter == 3 and new.title in result.sections[0].plot_loops, "the outline sets one up"
    assigned = [title for s in result.sections for title in s.plot_loops if title != new.title]
    assert sorted(assigned) == ["断剑之谜", "玉佩来历"]  # each open loop once, the resolved one not at all
    for section in result.sections:
        assert f"第{section.position}章《{section.title}》：{section.summary}" in result.text


def test_more_open_loops_make_more_sections_up_to_five() -> None:
    loops = [PlotLoopState(plot_loop_id=f"x{n}", title=f"伏笔{n}", description="", status="open") for n in range(1, 8)]
    result = compose(
        request(A.PLANNER, W.MANAGE_PLOTLOOP, "伏笔怎么回收", context=CONTEXT.model_copy(update={"plot_loops": loops})),
        CHAPTERS,
    )
    assert len(result.sections) == 5
    woven = sorted(t for s in result.sections for t in s.plot_loops if t != result.plot_loops[0].title)
    assert woven == sorted(loop.title for loop in loops)
    assert "伏笔状态：" in result.text


def test_an_empty_project_is_outlined_from_chapter_one() -> None:
    result = compose(request(A.PLANNER, W.PLAN_OUTLINE, "规划大纲", context=None), [])
    assert [s.position for s in result.sections] == [1, 2, 3]


def test_pacing_comments_on_chapter_lengths() -> None:
    chapters = [*CHAPTERS, make_chapter(3, "长章", "林舟走了很久。" * 60)]
    text = compose(request(A.PLANNER, W.ANALYZE_PACING, "节奏是不是太慢了"), chapters).text
    assert "节奏观察：共3章" in text
    assert "第3章" in text and "偏长" in text


# consistency, brainstorm


def test_the_consistency_report_runs_the_checks_and_keeps_the_preflight() -> None:
    chapters = [*CHAPTERS, make_chapter(3, "归来", "雨停了。苏念推门走了进来。")]
    preflight_issue = ConsistencyIssue(kind="short_chapter", severity="info", message="第3章太短")
    context = CONTEXT.model_copy(update={"preflight": [preflight_issue]})
    result = compose(request(A.CONSISTENCY, W.CHECK_CONSISTENCY, "检查一致性", context=context), chapters)
    assert [i.kind for i in result.issues] == ["dead_character_acts", "short_chapter"]
    assert "错误1处" in result.text and "提示1处" in result.text and "苏念" in result.text


def test_a_clean_project_is_reported_clean_and_style_is_measured() -> None:
    result = compose(request(A.CONSISTENCY, W.ANALYZE_STYLE, "分析文风"), CHAPTERS)
    assert result.issues == []
    assert "没有发现前后矛盾的地方" in result.text
    assert "平均句长" in result.text and "对白占比" in result.text and "高频词：林舟" in result.text


def test_brainstorm_offers_three_distinct_grounded_options() -> None:
    result = compose(request(A.BRAINSTORM, W.BRAINSTORM_AND_EXPAND, "给第三章想几个结局，选一个再写"), CHAPTERS)
    assert [o.id for o in result.options] == ["A", "B", "C"]
    assert len({o.title for o in result.options}) == 3 and len({o.summary for o in result.options}) == 3
    joined = " ".join(f"{o.title}{o.summary}" for o in result.options)
    assert "林舟" in joined and "沈青衣" in joined and "断剑之谜" in joined and "第3章" in joined
    for option in result.options:
        assert f"{option.id}. {option.title}" in result.text
    assert "请回复 A、B 或 C" in result.text


# simple


def simple(intent: WritingIntent, text: str, context: PreprocessingContext | None = CONTEXT) -> AgentResult:
    return compose(request(A.SIMPLE, intent, text, context=context), CHAPTERS)


def test_chat_tells_the_projects_state() -> None:
    assert "2章、3个角色（林舟、苏念、沈青衣等）" in simple(W.GENERAL_CHAT, "你好").text
    assert "2 chapters and 3 characters" in simple(W.GENERAL_CHAT, "hello there").text


def test_five_names_in_the_requests_language() -> None:
    chinese = simple(W.GENERATE_NAME, "给女主起个名字").text.splitlines()[2:]
    names = [line.split(". ", 1)[1] for line in chinese]
    assert len(set(names)) == 5
    assert all(name.startswith(SURNAMES) and name not in {"林舟", "苏念", "沈青衣"} for name in names)
    english = [
        line.split(". ", 1)[1] for line in simple(W.GENERATE_NAME, "suggest names for a knight").text.splitlines()[2:]
    ]
    assert len(set(english)) == 5 and all(re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z]+", name) for name in english)


def test_book_titles_and_place_names_when_asked() -> None:
    titles = simple(W.GENERATE_NAME, "帮我起个书名").text
    assert "5个书名" in titles and "《青石城" in titles
    places = simple(W.GENERATE_NAME, "起几个地名").text
    assert "5个地名" in places


def test_summaries_of_the_named_chapter_or_all() -> None:
    second = simple(W.SUMMARIZE, "总结第二章").text
    assert "第2章《夜雨》：那一夜雨下得很大。" in second and "第1章" not in second
    every = simple(W.SUMMARIZE, "总结一下").text
    assert "第1章《初入青石城》：林舟背着行囊走进青石城。" in every and "第2章《夜雨》" in every


def test_entities_are_the_known_characters_new_names_and_places() -> None:
    text = simple(W.EXTRACT_ENTITY, "提取人物和地点，还有「顾远」").text
    assert "已知角色：林舟（4次）、苏念（2次）、沈青衣（1次）" in text
    assert "新出现的名字：顾远" in text
    assert "地点：青石城、北山" in text
    assert DECEASED not in text


# the shared helpers


def test_place_names_skip_the_verbs_before_them() -> None:
    assert place_names("他走进青石城，又离开北山，下山时路过落霞村。") == ["青石城", "北山", "落霞村"]


def test_quoted_text_loses_the_sentences_where_the_dead_act() -> None:
    assert without_acting("苏念推门走了进来。林舟笑了。苏念的剑还在。", ["苏念"]) == "林舟笑了。苏念的剑还在。"
    chain = brainstorm_chain("苏念推门走了进来。林舟拔剑。")
    result = compose(request(A.WRITER, W.BRAINSTORM_AND_EXPAND, "展开", chain=chain), CHAPTERS)
    assert "林舟拔剑。" in result.text and "苏念推门" not in result.text
