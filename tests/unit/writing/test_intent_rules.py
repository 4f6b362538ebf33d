"""The writing router's fast path: each intent of seed 002 from at least five phrasings (Chinese and English),
the specific before the general, the phase and workflow of each intent, and the entities a request names."""

import pytest

from activities.writing.intent_rules import extract_entities, match_intent, unambiguous_intent
from models.writing.intents import PHASE_OF_INTENT, WORKFLOW_FOR_INTENT, CreationPhase, WorkflowKind, WritingIntent

W = WritingIntent

PHRASINGS: dict[WritingIntent, list[str]] = {
    W.REVISE_CHAPTER: [
        "改写第二章，让节奏更紧凑",
        "把第三章重写一下",
        "第十二章需要精简",
        "润色《雨夜》，对白太生硬",
        "Rewrite chapter 2 with a tighter pace",
        "Please revise the chapter so the dialogue is sharper",
        "Tighten chapter 5, it drags",
    ],
    W.WRITE_CONTENT: [
        "帮我续写下一段",
        "写一段林舟和师父告别的对话",
        "把这段润色一下",
        "Continue the story from where Mara leaves the tower",
        "Write the opening paragraph of the heist",
        "Please rewrite this dialogue so it sounds less stiff",
    ],
    W.PLAN_CHARACTER: [
        "帮我设计一个反派",
        "完善一下主角的性格",
        "给女主写个人物小传，包括背景和动机",
        "Help me flesh out my protagonist",
        "Design a villain for a cyberpunk story",
        "What is the backstory of my antagonist, can you build it out?",
    ],
    W.DESIGN_RELATIONSHIP: [
        "设计一下林舟和苏念的感情线",
        "主角和反派之间是什么关系比较好",
        "这两个人的羁绊怎么写",
        "Design the relationship between Ash and Kiri",
        "What is the dynamic between the two sisters?",
        "Give me a rivalry between the captain and the navigator",
    ],
    W.MATCH_ARCHETYPE: [
        "我的配角适合什么原型",
        "这个人设像哪种类型的角色",
        "给我推荐几个人设模板",
        "Which archetype fits my mentor figure?",
        "Is my hero a common trope?",
        "What kind of character would be a good foil?",
    ],
    W.PLAN_WORLD: [
        "帮我构建一个修仙世界观",
        "设计一套魔法体系",
        "这个大陆有哪些势力和种族",
        "Help with worldbuilding for a desert empire",
        "Design the magic system of my novel",
        "Tell me about the factions in this setting",
    ],
    W.BRAINSTORM_IDEA: [
        "给我一些悬疑小说的点子",
        "来点脑洞",
        "我没有灵感了",
        "Brainstorm some premises for a space opera",
        "I need ideas for a twist",
        "What if the narrator were dead all along? Give me inspiration around that",
    ],
    W.PLAN_OUTLINE: [
        "帮我列个大纲",
        "规划一下后面十章的剧情走向",
        "用三幕结构梳理这个故事",
        "Outline the second act",
        "Make a chapter breakdown for book two",
        "Give me a beat sheet for the finale",
    ],
    W.MANAGE_PLOTLOOP: [
        "第三章埋的伏笔什么时候回收",
        "帮我整理一下还没填的坑",
        "这里需要埋线吗",
        "Which plot threads are still open?",
        "Help me foreshadow the betrayal",
        "Tie up the loose ends before the ending",
    ],
    W.ANALYZE_PACING: [
        "这一章节奏是不是太拖沓",
        "中段感觉太慢了",
        "分析一下整体的张弛",
        "Is the pacing of chapter 5 off?",
        "The middle drags, what do you think?",
        "Does the ending move too fast?",
    ],
    W.CHECK_CONSISTENCY: [
        "检查一下前后设定有没有矛盾",
        "这里是不是吃书了",
        "帮我看看时间线有没有逻辑漏洞",
        "Check chapter 3 for consistency with chapter 1",
        "Are there plot holes in the heist?",
        "Does this contradict what Mara said earlier?",
    ],
    W.ANALYZE_STYLE: [
        "分析一下我的文风",
        "这段的语言风格怎么样",
        "我的笔调是不是太平",
        "Analyze the style of this chapter",
        "What is my writing style like?",
        "How would you describe the tone of my prose?",
    ],
    W.GENERAL_CHAT: [
        "你好",
        "谢谢你的帮助",
        "在吗",
        "Hello there",
        "Thanks, that was useful",
        "How are you today",
    ],
    W.GENERATE_NAME: [
        "给主角起个名字",
        "这本书叫什么名字好",
        "帮我取几个门派的名字",
        "Suggest names for a northern city",
        "I need a title for my novel, any title ideas?",
        "What should I call the dragon?",
    ],
    W.SUMMARIZE: [
        "总结一下这一章",
        "帮我概括前三章的内容",
        "写个故事梗概",
        "Summarize chapter 2",
        "Give me a recap of the story so far",
        "tl;dr of the prologue please",
    ],
    W.EXTRACT_ENTITY: [
        "提取这一章出现的所有人物",
        "找出文中的地名",
        "列出第二章的全部角色",
        "Extract the entities from this passage",
        "List all the characters mentioned in chapter 4",
        "Who appears in the prologue?",
    ],
    W.BRAINSTORM_AND_EXPAND: [
        "先给我几个结局方案，我选一个再写",
        "头脑风暴一下，然后把最好的扩写成正文",
        "想几个走向，选好后展开写",
        "Brainstorm three endings, then write the one I pick",
        "Give me options for the climax, I'll choose one and you expand it",
        "Brainstorm a few openings and then draft the best",
    ],
    W.OUTLINE_TO_CHAPTER: [
        "根据大纲写第三章",
        "按照这个大纲生成正文",
        "把大纲扩写成第一章",
        "Write chapter 4 from the outline",
        "Turn this outline into a chapter",
        "Based on my outline, draft the next chapter",
    ],
    W.CHARACTER_TO_SCENE: [
        "根据这个角色写一个场景",
        "设计一个刺客角色，然后写她登场的场景",
        "用主角写一段雨夜的戏",
        "Create a character and then write a scene with her",
        "Write a scene based on my villain character",
        "A scene featuring this character at the harbour",
    ],
}


def test_every_intent_of_the_seed_has_at_least_five_phrasings_in_both_languages() -> None:
    assert set(PHRASINGS) == set(WritingIntent)
    for intent, texts in PHRASINGS.items():
        chinese = [t for t in texts if any("\u4e00" <= c <= "\u9fff" for c in t)]
        assert len(texts) >= 5 and chinese and len(chinese) < len(texts), intent


@pytest.mark.parametrize(
    ("intent", "text"), [(intent, text) for intent, texts in PHRASINGS.items() for text in texts], ids=str
)
def test_a_phrasing_gets_its_intent(intent: WritingIntent, text: str) -> None:
    result = match_intent(text)

    assert result is not None, text
    assert result.intent == intent, (text, result.intent)
    assert result.phase == PHASE_OF_INTENT[intent] and result.source == "rules"


@pytest.mark.parametrize("text", ["", "   ", "嗯", "ok", "42", "asdfgh qwerty"])
def test_what_no_rule_recognises_is_left_to_the_llm(text: str) -> None:
    assert match_intent(text) is None


def test_the_general_rules_are_less_sure_than_the_specific_ones() -> None:
    write, check = match_intent("help me write"), match_intent("check this for plot holes")

    assert write is not None and check is not None
    assert write.confidence < check.confidence


def test_each_intent_has_the_workflow_and_phase_of_the_seeds_tables() -> None:
    assert WORKFLOW_FOR_INTENT[W.WRITE_CONTENT] == WorkflowKind.CONTENT_GENERATION
    assert {i for i, w in WORKFLOW_FOR_INTENT.items() if w == WorkflowKind.CHARACTER_DESIGN} == {
        W.PLAN_CHARACTER,
        W.DESIGN_RELATIONSHIP,
        W.MATCH_ARCHETYPE,
    }
    assert {i for i, w in WORKFLOW_FOR_INTENT.items() if w == WorkflowKind.SIMPLE_AGENT} == {
        W.GENERAL_CHAT,
        W.GENERATE_NAME,
        W.SUMMARIZE,
        W.EXTRACT_ENTITY,
    }
    assert WORKFLOW_FOR_INTENT[W.BRAINSTORM_AND_EXPAND] == WorkflowKind.BRAINSTORM_EXPAND
    assert PHASE_OF_INTENT[W.PLAN_WORLD] == CreationPhase.WORLDBUILDING
    assert set(WORKFLOW_FOR_INTENT) == set(PHASE_OF_INTENT) == set(WritingIntent)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("根据大纲写第三章", [("chapter", "3")]),
        ("第12章和第二十一章的伏笔", [("chapter", "12"), ("chapter", "21")]),
        ("Write chapter 4 from the outline", [("chapter", "4")]),
        ("给「林舟」和“苏念”设计感情线", [("quoted", "林舟"), ("quoted", "苏念")]),
        ("总结《长夜》第一百零五章", [("chapter", "105"), ("quoted", "长夜")]),
        ('Design the relationship between "Ash" and "Kiri"', [("quoted", "Ash"), ("quoted", "Kiri")]),
    ],
)
def test_chapters_and_quoted_names_are_extracted(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(e.kind, e.text) for e in extract_entities(text)] == expected


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("第三章写得怎么样？", W.ANALYZE_STYLE),
        ("给我的小说写个简介", W.SUMMARIZE),
        ("改写第二章，让节奏更紧凑", W.REVISE_CHAPTER),
    ],
)
def test_issue_25_a_write_in_the_request_is_not_always_a_new_scene(text: str, intent: WritingIntent) -> None:
    result = match_intent(text)

    assert result is not None and result.intent == intent


@pytest.mark.parametrize(
    ("text", "unambiguous"),
    [
        ("第三章写得怎么样？", False),
        ("来点灵感", False),
        ("写一段林舟和苏念在码头打斗的场景", True),
        ("续写", True),
        ("你好", False),
        ("给我的小说写个简介", True),
        ("改写第二章，让节奏更紧凑", True),
        ("根据大纲写第三章", True),
    ],
)
def test_issue_25_only_a_specific_rule_s_match_is_unambiguous(text: str, unambiguous: bool) -> None:
    assert (unambiguous_intent(text) is not None) == unambiguous
    assert match_intent(text) is not None
