"""The offline brief compiler: where the platform comes from (the run, the user's answer, the topic), the single
platform question and the assumption after it, audience and tone by keyword tables, and the key messages."""

import re

import pytest

from activities.content.offline.brief import PLATFORM_KEY, compile_brief
from models.content.agents import AgentName, AgentRequest, ClarificationAnswer, ContentView
from models.content.artifacts import CreativeBrief, Platform

CJK = re.compile(r"[\u4e00-\u9fff]")


def request(topic: str, platform: Platform | None = None, **extra: object) -> AgentRequest:
    return AgentRequest.model_validate(
        {"agent": AgentName.BRIEF_COMPILER, "view": ContentView(topic=topic, platform=platform), **extra}
    )


def answer(key: str, text: str) -> ClarificationAnswer:
    return ClarificationAnswer(key=key, question="?", answer=text)


def brief_of(req: AgentRequest) -> CreativeBrief:
    outcome = compile_brief(req)
    assert outcome.clarification is None
    assert outcome.patch.creative_brief is not None
    return outcome.patch.creative_brief


def test_the_run_platform_wins_over_an_answer_and_the_topic() -> None:
    req = request("抖音上的咖啡挑战", platform="weibo", answers=[answer(PLATFORM_KEY, "小红书")])
    assert brief_of(req).platform == "weibo"


@pytest.mark.parametrize(
    ("text", "platform"),
    [
        ("xiaohongshu", "xiaohongshu"),
        ("wechat", "wechat"),
        ("小红书", "xiaohongshu"),
        ("发微博吧", "weibo"),
        ("公众号", "wechat"),
        ("微信", "wechat"),
        ("抖音", "douyin"),
        ("Weibo please", "weibo"),
        ("our WeChat official account", "wechat"),
        ("TikTok / Douyin", "douyin"),
        ("Little Red Book", "xiaohongshu"),
    ],
)
def test_the_platform_answer_is_an_option_id_or_free_text(text: str, platform: str) -> None:
    assert brief_of(request("周末咖啡馆探店", answers=[answer(PLATFORM_KEY, text)])).platform == platform


def test_the_platform_named_in_the_topic_is_used_when_nobody_said() -> None:
    brief = brief_of(request("抖音上的三分钟早餐挑战"))
    assert brief.platform == "douyin"
    assert brief.assumptions == []


def test_an_unknown_platform_is_asked_once_with_the_four_options_and_nothing_written() -> None:
    outcome = compile_brief(request("周末咖啡馆探店"))
    assert outcome.patch.written() == set()
    assert outcome.clarification is not None
    assert outcome.clarification.key == "brief.platform"
    assert outcome.clarification.question == "这篇内容要发在哪个平台？（决定篇幅、语气和配图比例）"
    assert outcome.clarification.options == [
        ("xiaohongshu", "小红书"),
        ("weibo", "微博"),
        ("wechat", "微信公众号"),
        ("douyin", "抖音"),
    ]


@pytest.mark.parametrize(("may_ask", "asked"), [(False, []), (True, ["brief.platform"])])
def test_without_asking_the_platform_is_assumed_xiaohongshu_and_recorded(may_ask: bool, asked: list[str]) -> None:
    brief = brief_of(request("周末咖啡馆探店", may_ask=may_ask, asked=asked))
    assert brief.platform == "xiaohongshu"
    assert any("小红书" in assumption for assumption in brief.assumptions)


def test_an_answer_naming_no_platform_still_leads_to_the_question_when_not_asked_yet() -> None:
    outcome = compile_brief(request("周末咖啡馆探店", answers=[answer(PLATFORM_KEY, "随便")]))
    assert outcome.clarification is not None


@pytest.mark.parametrize(
    ("topic", "audience"),
    [
        ("职场人午休的十分钟放松法", "职场人"),
        ("上班通勤路上的听书清单", "职场人"),
        ("考试周高效复习", "学生"),
        ("宝妈育儿经验分享", "年轻父母"),
        ("减脂餐怎么吃才不饿", "健身爱好者"),
        ("日本关西旅行路线", "旅行爱好者"),
        ("手冲咖啡入门", "美食爱好者"),
        ("量子计算科普", "对该话题感兴趣的读者"),
        ("Lunch ideas for office workers", "职场人"),
        ("A 20-minute home workout", "健身爱好者"),
        ("Cold brew coffee at home", "美食爱好者"),
    ],
)
def test_the_audience_comes_from_the_keyword_table(topic: str, audience: str) -> None:
    assert brief_of(request(topic, platform="xiaohongshu")).audience == audience


@pytest.mark.parametrize(
    ("platform", "tone"),
    [("xiaohongshu", "亲切种草"), ("weibo", "简洁有话题性"), ("wechat", "专业深入"), ("douyin", "口语有节奏")],
)
def test_tone_and_call_to_action_follow_the_platform(platform: Platform, tone: str) -> None:
    brief = brief_of(request("手冲咖啡入门", platform=platform))
    assert brief.tone == tone
    assert CJK.search(brief.call_to_action)


def test_each_platform_has_its_own_call_to_action() -> None:
    platforms: list[Platform] = ["xiaohongshu", "weibo", "wechat", "douyin"]
    ctas = {brief_of(request("手冲咖啡入门", platform=p)).call_to_action for p in platforms}
    assert len(ctas) == 4


def test_key_messages_come_from_the_topic_aspects_and_the_guidance_never_the_focus_areas() -> None:
    # Was: a focus area became "<topic>的<area>" ("…的平台 / …的受众"), then a heading of the post (issue 29).
    req = request(
        "上班族午休健身：10分钟拉伸与饮食建议",
        platform="xiaohongshu",
        focus_areas=["可操作建议"],
        guidance="基于 brief 生成正文，强调性价比",
    )
    messages = brief_of(req).key_messages
    assert 3 <= len(messages) <= 5
    assert "上班族午休健身" in messages
    assert "10分钟拉伸" in messages
    assert "性价比" in messages
    assert not any("可操作建议" in m for m in messages)
    assert not any("生成正文" in m or "brief" in m for m in messages)


def test_a_single_aspect_topic_is_padded_to_three_key_messages() -> None:
    messages = brief_of(request("手冲咖啡", platform="weibo")).key_messages
    assert len(messages) == 3
    assert sum("手冲咖啡" in m for m in messages) == 1, "only one padded message names the topic"
    assert len(set(messages)) == 3


def test_a_free_text_answer_to_another_question_becomes_a_key_message_but_the_platform_answer_does_not() -> None:
    req = request(
        "手冲咖啡",
        answers=[answer(PLATFORM_KEY, "小红书"), answer("brief.angle", "重点讲新手最容易犯的错")],
    )
    brief = brief_of(req)
    assert brief.platform == "xiaohongshu"
    assert "重点讲新手最容易犯的错" in brief.key_messages
    assert "小红书" not in brief.key_messages


def test_many_sources_are_capped_at_five_key_messages_keeping_guidance_and_answers() -> None:
    req = request(
        "咖啡、茶、果汁、奶昔、气泡水",
        platform="wechat",
        focus_areas=["趋势", "卖点", "价格"],
        guidance="突出健康",
        answers=[answer("brief.angle", "夏天喝什么最解暑")],
    )
    messages = brief_of(req).key_messages
    assert len(messages) == 5
    assert "健康" in messages
    assert "夏天喝什么最解暑" in messages


def test_an_english_topic_works() -> None:
    req = request("Morning coffee routine, budget tips and latte art", platform="wechat")
    brief = brief_of(req)
    assert brief.key_messages[:3] == ["Morning coffee routine", "budget tips", "latte art"]
    assert brief.call_to_action.isascii()
    assert brief.audience == "美食爱好者"


def test_only_the_brief_is_written_and_the_summary_is_chinese_and_names_the_platform() -> None:
    outcome = compile_brief(request("手冲咖啡入门", platform="douyin"))
    assert outcome.patch.written() == {"creative_brief"}
    assert outcome.offline
    assert "抖音" in outcome.summary
    assert CJK.search(outcome.summary)


def test_the_same_request_gives_the_same_brief() -> None:
    req = request("上班族午休健身：拉伸与饮食", platform="wechat", focus_areas=["误区"], guidance="强调安全")
    assert compile_brief(req) == compile_brief(req.model_copy(deep=True))
