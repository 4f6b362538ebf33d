"""The offline layout planner: the layout by preference or platform, the slot order of each layout, at most four
images bound to no paragraph (seed 001), alignment on request, the platform's aspect ratio."""

import re

import pytest

from activities.content.offline.layout import plan_layout
from models.content.agents import AgentName, AgentRequest, ContentView, QualityFix
from models.content.artifacts import BodyBlock, CreativeBrief, LayoutPreference, LayoutSpec, Platform, QualityDimension

CJK = re.compile(r"[\u4e00-\u9fff]")


def blocks(count: int) -> list[BodyBlock]:
    return [BodyBlock(id=f"b{i + 1}", heading=f"第{i + 1}段", points=["要点"]) for i in range(count)]


def spec_of(
    platform: Platform | None = "xiaohongshu",
    block_count: int = 4,
    preference: LayoutPreference | None = None,
    guidance: str = "",
    brief: CreativeBrief | None = None,
) -> LayoutSpec:
    view = ContentView(
        topic="手冲咖啡入门",
        platform=platform,
        layout_preference=preference,
        body_blocks=blocks(block_count),
        creative_brief=brief,
    )
    outcome = plan_layout(AgentRequest(agent=AgentName.LAYOUT_PLANNER, view=view, guidance=guidance))
    assert outcome.patch.layout_spec is not None
    return outcome.patch.layout_spec


def shape(spec: LayoutSpec) -> list[str]:
    return [str(slot.block_id) if slot.kind == "text" else str(slot.image_slot) for slot in spec.slots]


@pytest.mark.parametrize(
    ("platform", "layout", "ratio"),
    [
        ("xiaohongshu", "cover_first", "3:4"),
        ("wechat", "alternating", "16:9"),
        ("weibo", "grid", "1:1"),
        ("douyin", "cover_first", "9:16"),
        (None, "cover_first", "3:4"),
    ],
)
def test_the_platform_chooses_the_layout_and_the_aspect_ratio(
    platform: Platform | None, layout: str, ratio: str
) -> None:
    spec = spec_of(platform)
    assert (spec.layout, spec.aspect_ratio) == (layout, ratio)


def test_the_brief_platform_counts_when_the_run_has_none() -> None:
    brief = CreativeBrief(topic="t", platform="weibo", audience="a", tone="t", key_messages=["m"])
    assert spec_of(None, brief=brief).layout == "grid"


def test_the_user_preference_wins_over_the_platform() -> None:
    spec = spec_of("wechat", preference="grid")
    assert spec.layout == "grid"
    assert spec.aspect_ratio == "16:9"


def test_cover_first_puts_the_cover_first_and_an_image_after_every_second_block() -> None:
    spec = spec_of("xiaohongshu", block_count=4)
    assert shape(spec) == ["cover", "b1", "b2", "img1", "b3", "b4", "img2"]
    assert spec.image_count == 3


def test_alternating_puts_an_image_after_each_block_up_to_four() -> None:
    assert shape(spec_of("wechat", block_count=3)) == ["b1", "img1", "b2", "img2", "b3", "img3"]
    spec = spec_of("wechat", block_count=6)
    assert shape(spec) == ["b1", "img1", "b2", "img2", "b3", "img3", "b4", "img4", "b5", "b6"]
    assert spec.image_count == 4


def test_grid_puts_the_text_first_then_the_images() -> None:
    spec = spec_of("weibo", block_count=3)
    assert shape(spec) == ["b1", "b2", "b3", "img1", "img2", "img3"]


@pytest.mark.parametrize("guidance", ["提升图文对齐", "配图要和段落对齐", "improve text-image alignment"])
def test_alignment_guidance_puts_each_image_right_after_its_block(guidance: str) -> None:
    assert shape(spec_of("weibo", block_count=3, guidance=guidance)) == [
        "b1",
        "img1",
        "b2",
        "img2",
        "b3",
        "img3",
    ]
    cover_first = spec_of("xiaohongshu", block_count=4, guidance=guidance)
    assert shape(cover_first) == ["cover", "b1", "img1", "b2", "img2", "b3", "img3", "b4"]
    assert "对齐" in cover_first.rationale


@pytest.mark.parametrize("platform", ["xiaohongshu", "wechat", "weibo", "douyin"])
@pytest.mark.parametrize("count", [1, 2, 5, 8])
def test_every_image_slot_is_counted_and_bound_to_no_block(platform: Platform, count: int) -> None:
    spec = spec_of(platform, block_count=count)
    images = [slot for slot in spec.slots if slot.kind == "image"]
    texts = [slot.block_id for slot in spec.slots if slot.kind == "text"]
    assert texts == [f"b{i + 1}" for i in range(count)]
    assert spec.image_count == len(images)
    assert 1 <= spec.image_count <= 4
    assert len({slot.image_slot for slot in images}) == len(images)
    assert all(slot.block_id is None for slot in images)


def test_without_body_blocks_the_brief_key_messages_make_up_to_three_blocks() -> None:
    brief = CreativeBrief(topic="t", platform="wechat", audience="a", tone="t", key_messages=["一", "二", "三", "四"])
    spec = spec_of(None, block_count=0, brief=brief)
    assert [slot.block_id for slot in spec.slots if slot.kind == "text"] == ["b1", "b2", "b3"]
    short = brief.model_copy(update={"key_messages": ["一", "二"]})
    assert [slot.block_id for slot in spec_of(None, block_count=0, brief=short).slots if slot.kind == "text"] == [
        "b1",
        "b2",
    ]


def test_only_the_layout_is_written_with_a_chinese_rationale() -> None:
    view = ContentView(topic="手冲咖啡入门", platform="wechat", body_blocks=blocks(3))
    outcome = plan_layout(AgentRequest(agent=AgentName.LAYOUT_PLANNER, view=view))
    assert outcome.patch.written() == {"layout_spec"}
    assert outcome.patch.layout_spec is not None
    assert CJK.search(outcome.patch.layout_spec.rationale)
    assert CJK.search(outcome.summary)
    assert plan_layout(AgentRequest(agent=AgentName.LAYOUT_PLANNER, view=view)) == outcome


def test_a_text_image_alignment_fallback_aligns_whatever_the_guidance_says() -> None:
    view = ContentView(topic="手冲咖啡入门", platform="weibo", body_blocks=blocks(3))
    found = ["1/3 张配图的提示词与所配段落有共同关键词"]
    fix = QualityFix(dimension=QualityDimension.TEXT_IMAGE_ALIGNMENT, score=0.4, findings=found)
    outcome = plan_layout(AgentRequest(agent=AgentName.LAYOUT_PLANNER, view=view, guidance="继续", fix=fix))
    assert outcome.patch.layout_spec is not None
    assert shape(outcome.patch.layout_spec) == ["b1", "img1", "b2", "img2", "b3", "img3"]
