"""The offline writer: the body inside each platform's length range (padded or trimmed, shorter or longer on
request), the title inside its limit, the evidence's numbers in the body, the hashtag rule, one text block per body
block, short sentences, and nothing but `generated_content` written."""

import re

import pytest

from activities.content.offline.writer import write_post
from models.content.agents import AgentName, AgentRequest, ContentView
from models.content.artifacts import (
    BODY_LENGTH,
    TITLE_LIMIT,
    BodyBlock,
    CreativeBrief,
    EvidenceItem,
    GeneratedContent,
    Platform,
)

PLATFORMS: list[Platform] = ["xiaohongshu", "weibo", "wechat", "douyin"]
EMOJI = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]")

BLOCKS = [
    BodyBlock(id="b1", heading="咖啡提神的正确方式", points=["很多上班族午饭后习惯喝一杯咖啡提神。"]),
    BodyBlock(id="b2", heading="手冲咖啡的风味", points=["手冲咖啡的风味取决于研磨度、水温和萃取时间。"]),
    BodyBlock(id="b3", heading="午休与咖啡因", points=["午休小睡能让下午更专注。"]),
]
EVIDENCE = [
    EvidenceItem(
        claim="2023年，中国咖啡消费量同比增长15%，一线城市人均每年喝咖啡超过300杯。", source="note-2", kind="statistic"
    ),
    EvidenceItem(claim="午休小睡20分钟可以提升下午的专注力。", source="note-3", kind="statistic"),
    EvidenceItem(claim="专家说：“咖啡因每天不宜超过400毫克。”", source="note-2", kind="statistic"),
    EvidenceItem(claim="建议新手从固定参数开始慢慢调整手冲咖啡的研磨度。", source="note-4", kind="tip"),
    EvidenceItem(claim="咖啡提神的正确方式", source="brief", kind="tip"),
]


def brief(platform: Platform, topic: str = "上班族的咖啡指南", key_messages: list[str] | None = None) -> CreativeBrief:
    return CreativeBrief(
        topic=topic,
        platform=platform,
        audience="职场人",
        tone="亲切",
        key_messages=key_messages or [b.heading for b in BLOCKS],
        call_to_action="觉得有用就点赞收藏",
    )


def request(
    platform: Platform,
    blocks: list[BodyBlock] | None = None,
    guidance: str = "",
    previous: GeneratedContent | None = None,
    topic: str = "上班族的咖啡指南",
    key_messages: list[str] | None = None,
) -> AgentRequest:
    view = ContentView(
        topic=topic,
        creative_brief=brief(platform, topic, key_messages),
        body_blocks=BLOCKS if blocks is None else blocks,
        generated_content=previous,
    )
    return AgentRequest(agent=AgentName.WRITER, view=view, guidance=guidance)


def content(req: AgentRequest, evidence: list[EvidenceItem] | None = None) -> GeneratedContent:
    outcome = write_post(req, EVIDENCE if evidence is None else evidence)
    assert outcome.patch.generated_content is not None
    return outcome.patch.generated_content


def many_statistics() -> list[EvidenceItem]:
    return [
        EvidenceItem(
            claim=f"第{i}项调查显示，{i * 7}%的受访者每天喝咖啡超过{i}杯，这个比例在一线城市还在持续上升。",
            source="note-1",
            kind="statistic",
        )
        for i in range(1, 40)
    ]


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("case", ["evidence", "bare", "flood", "one_block"])
@pytest.mark.parametrize("guidance", ["", "请精简一些", "请扩写得更详细"])
def test_the_body_is_within_the_platform_length_range(platform: Platform, case: str, guidance: str) -> None:
    if case == "evidence":
        post = content(request(platform, guidance=guidance))
    elif case == "bare":
        post = content(request(platform, blocks=[], guidance=guidance), [])
    elif case == "flood":
        post = content(request(platform, guidance=guidance), many_statistics())
    else:
        post = content(request(platform, blocks=[], key_messages=["茶"], topic="茶", guidance=guidance), [])
    low, high = BODY_LENGTH[platform]
    assert low <= len(post.body) <= high


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_title_keeps_within_the_platform_limit(platform: Platform) -> None:
    long_topic = (
        "一个非常非常长的话题名称用来检验标题在各个平台的长度限制下都不会超出范围而且读起来依然通顺自然没有问题吧"
    )
    title = content(request(platform, topic=long_topic)).title
    assert 0 < len(title) <= TITLE_LIMIT[platform]
    assert long_topic.startswith(title.rstrip("…"))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_numbers_of_the_evidence_appear_in_the_body_verbatim(platform: Platform) -> None:
    body = content(request(platform)).body
    for item in EVIDENCE[:3]:
        assert item.claim in body
    for number in ("15%", "300杯", "20分钟", "400毫克"):
        assert number in body


def test_a_statistic_that_matches_no_block_still_reaches_the_body() -> None:
    unrelated = EvidenceItem(claim="全国共有超过12万家门店。", source="note-9", kind="statistic")
    assert "12万家" in content(request("weibo"), [unrelated]).body


def test_the_evidence_is_placed_in_the_block_it_matches() -> None:
    blocks = {block.id: block.text for block in content(request("wechat")).blocks}
    assert "400毫克" in blocks["b3"] or "400毫克" in blocks["b1"]
    assert "研磨度" in blocks["b2"]
    assert "20分钟" in blocks["b3"]


def test_a_flood_of_evidence_trims_sentences_but_keeps_every_block() -> None:
    post = content(request("douyin"), many_statistics())
    assert [block.id for block in post.blocks] == ["b1", "b2", "b3"]
    assert all(block.text for block in post.blocks)
    assert "%" in post.body


@pytest.mark.parametrize("platform", ["xiaohongshu", "weibo", "douyin"])
def test_hashtags_are_three_to_five_without_hash_marks(platform: Platform) -> None:
    tags = content(request(platform)).hashtags
    assert 3 <= len(tags) <= 5
    assert all(tag and "#" not in tag and " " not in tag for tag in tags)
    assert len({tag.lower() for tag in tags}) == len(tags)
    assert "上班族的咖啡指南" in tags


def test_wechat_gets_no_hashtags() -> None:
    assert content(request("wechat")).hashtags == []


def test_an_english_topic_makes_camel_case_hashtags_a_word_boundary_title_and_an_english_post() -> None:
    req = request("xiaohongshu", blocks=[], topic="Cold brew coffee at home for beginners", key_messages=["cold brew"])
    post = content(req, [])
    assert post.hashtags[0] == "ColdBrewCoffee"
    assert post.title == "Cold brew coffee…"
    label = "[Offline draft: no language model is connected]"
    assert post.body.startswith(f"{label}\nCold brew coffee at home for beginners:")
    assert BODY_LENGTH["xiaohongshu"][0] <= len(post.body)


def test_one_block_per_body_block_with_the_headings_in_the_body() -> None:
    post = content(request("wechat"))
    assert [(block.id, block.heading) for block in post.blocks] == [(b.id, b.heading) for b in BLOCKS]
    for block in post.blocks:
        assert block.heading in post.body
        assert block.text in post.body


def test_without_body_blocks_the_key_messages_make_the_blocks() -> None:
    post = content(request("weibo", blocks=[]), [])
    assert [block.heading for block in post.blocks] == [b.heading for b in BLOCKS]
    assert [block.id for block in post.blocks] == ["b1", "b2", "b3"]


def test_the_opening_and_the_call_to_action_frame_the_body() -> None:
    post = content(request("weibo"))
    assert post.body.rstrip().endswith("觉得有用就点赞收藏")
    assert post.body.startswith("【")


def test_long_plain_points_are_cut_into_short_sentences() -> None:
    point = (
        "选豆的时候先看烘焙日期，再看产地和处理法，然后根据自己喜欢的酸度和醇厚度挑选，"
        "最后记得少量多次购买，保证每一杯都新鲜"
    )
    blocks = [BodyBlock(id="b1", heading="怎么选咖啡豆", points=[point])]
    text = content(request("weibo", blocks=blocks), []).blocks[0].text
    sentences = [s for s in re.split(r"(?<=。)", text) if s]
    assert "烘焙日期" in text
    assert "保证每一杯都新鲜" in text
    assert all(len(sentence) <= 36 for sentence in sentences[:3])


def test_xiaohongshu_gets_emoji_and_wechat_does_not() -> None:
    assert EMOJI.search(content(request("xiaohongshu")).body)
    assert not EMOJI.search(content(request("wechat")).body)


def test_shorter_and_longer_guidance_change_the_length_within_range() -> None:
    normal = content(request("wechat"), many_statistics())
    shorter = content(request("wechat", guidance="请精简", previous=normal), many_statistics())
    longer = content(request("wechat", guidance="内容太单薄，请扩写得更详细", previous=normal), many_statistics())
    assert len(shorter.body) < len(normal.body) < len(longer.body)
    low, high = BODY_LENGTH["wechat"]
    assert low <= len(shorter.body) and len(longer.body) <= high


def test_english_guidance_for_length_works_too() -> None:
    normal = content(request("xiaohongshu"))
    assert len(content(request("xiaohongshu", guidance="make it longer", previous=normal)).body) > len(normal.body)
    flood = content(request("weibo"), many_statistics())
    shorter = content(request("weibo", guidance="Please shorten it", previous=flood), many_statistics())
    assert len(shorter.body) < len(flood.body)


def test_only_generated_content_is_written_and_the_summary_is_chinese() -> None:
    outcome = write_post(request("douyin"), EVIDENCE)
    assert outcome.patch.written() == {"generated_content"}
    assert outcome.offline
    assert "抖音" in outcome.summary
    assert "证据" in outcome.summary


def test_the_same_input_gives_the_same_post() -> None:
    assert write_post(request("xiaohongshu"), EVIDENCE) == write_post(request("xiaohongshu"), list(EVIDENCE))


def test_without_a_brief_the_writer_refuses() -> None:
    view = ContentView(topic="上班族的咖啡指南", body_blocks=BLOCKS)
    with pytest.raises(ValueError, match="brief"):
        write_post(AgentRequest(agent=AgentName.WRITER, view=view), EVIDENCE)
