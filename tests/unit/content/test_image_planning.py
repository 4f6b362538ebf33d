"""The offline image planner: one plan per image slot (or cover + blocks), prompts from the blocks, the style of
the measured reference images, sizes from the aspect ratio, stable seeds, and nothing written but image_plans."""

import dataclasses

import pytest

from activities.content.offline.image_planning import plan_images
from imaging.measurements import describe, measure_image
from imaging.rendering import composition_for, encode_png, render_text_to_image, style_family
from models.content.agents import AgentName, AgentRequest, ContentView
from models.content.artifacts import BodyBlock, CreativeBrief, ImagePlan, LayoutSlot, LayoutSpec, ReferenceAnalysis

TOPIC = "通勤族的高效早餐"
BLOCKS = [
    BodyBlock(id="b1", heading="为什么早餐重要", points=["早餐提供上午 30% 的能量", "不吃早餐更易疲劳"]),
    BodyBlock(id="b2", heading="五分钟燕麦杯", points=["前一晚泡好燕麦和酸奶"]),
    BodyBlock(id="b3", heading="便携水果搭配", points=["香蕉和苹果最方便携带"]),
]


def reference(prompt: str, seed: int = 3) -> ReferenceAnalysis:
    data = encode_png(render_text_to_image(prompt, seed=seed, width=256, height=256, style_strength=0.8))
    m = measure_image(data)
    return ReferenceAnalysis(image=f"blob:references/{seed}.png", description=describe(m), **dataclasses.asdict(m))


def layout(*slots: LayoutSlot, aspect_ratio: str = "3:4") -> LayoutSpec:
    images = sum(slot.kind == "image" for slot in slots)
    return LayoutSpec(layout="alternating", slots=list(slots), image_count=max(1, images), aspect_ratio=aspect_ratio)


ALTERNATING = layout(
    LayoutSlot(kind="image", image_slot="cover"),
    LayoutSlot(kind="text", block_id="b1"),
    LayoutSlot(kind="image", image_slot="img1"),
    LayoutSlot(kind="text", block_id="b2"),
    LayoutSlot(kind="text", block_id="b3"),
    LayoutSlot(kind="image", image_slot="img2"),
)


def request(**view: object) -> AgentRequest:
    fields: dict[str, object] = {"topic": TOPIC, "body_blocks": BLOCKS, **view}
    return AgentRequest(agent=AgentName.IMAGE_PLANNER, view=ContentView.model_validate(fields))


def plans_of(req: AgentRequest) -> list[ImagePlan]:
    outcome = plan_images(req)
    assert outcome.patch.image_plans is not None
    return outcome.patch.image_plans


def test_one_plan_per_image_slot_a_lone_image_drawing_the_text_block_before_it() -> None:
    plans = plans_of(request(layout_spec=ALTERNATING))
    assert [(p.plan_id, p.slot) for p in plans] == [("p1", "cover"), ("p2", "img1"), ("p3", "img2")]
    assert "封面" in plans[0].prompt and TOPIC in plans[0].prompt
    assert "为什么早餐重要" in plans[1].prompt and "早餐提供上午 30% 的能量" in plans[1].prompt
    assert "便携水果搭配" in plans[2].prompt and "香蕉和苹果最方便携带" in plans[2].prompt  # b3 is just before it
    assert all(p.style is None and style_family(p.prompt) is None for p in plans)


def test_no_image_is_bound_to_a_paragraph() -> None:
    # Seed 001 removed paragraphImageBindings: the image is generated from the whole text, not one paragraph's.
    assert "block_id" not in ImagePlan.model_fields
    assert all("block_id" not in p.model_dump() for p in plans_of(request(layout_spec=ALTERNATING)))


def test_a_group_of_images_after_the_text_draws_the_outline_in_order() -> None:
    spec = layout(
        *(LayoutSlot(kind="text", block_id=block.id) for block in BLOCKS),
        *(LayoutSlot(kind="image", image_slot=f"img{n}") for n in (1, 2, 3)),
    )
    plans = plans_of(request(layout_spec=spec))
    headings = [next(b.heading for b in BLOCKS if b.heading in p.prompt) for p in plans]
    assert headings == [block.heading for block in BLOCKS]


def test_without_a_layout_a_cover_and_one_per_block_at_most_three() -> None:
    plans = plans_of(request())
    assert [p.slot for p in plans] == ["cover", "img1", "img2"]
    assert "为什么早餐重要" in plans[1].prompt and "五分钟燕麦杯" in plans[2].prompt
    assert (plans[0].width, plans[0].height) == (768, 1024)
    only_cover = plans_of(request(body_blocks=[]))
    assert [(p.plan_id, p.slot) for p in only_cover] == [("p1", "cover")]


def test_the_brief_topic_is_preferred_to_the_raw_topic() -> None:
    brief = CreativeBrief(
        topic="上班族早餐清单", platform="xiaohongshu", audience="职场人", tone="亲切", key_messages=["快"]
    )
    plans = plans_of(request(creative_brief=brief))
    assert all(p.prompt.startswith("上班族早餐清单") for p in plans)


@pytest.mark.parametrize(
    ("ratio", "size"),
    [("3:4", (768, 1024)), ("1:1", (1024, 1024)), ("4:3", (1024, 768)), ("16:9", (1024, 576)), ("9:16", (576, 1024))],
)
def test_sizes_follow_the_aspect_ratio(ratio: str, size: tuple[int, int]) -> None:
    spec = layout(LayoutSlot(kind="image", image_slot="cover"), aspect_ratio=ratio)
    [plan] = plans_of(request(layout_spec=spec))
    assert (plan.width, plan.height) == size


def test_an_unknown_aspect_ratio_falls_back_to_portrait() -> None:
    spec = layout(LayoutSlot(kind="image", image_slot="cover"), aspect_ratio="2:1")
    [plan] = plans_of(request(layout_spec=spec))
    assert (plan.width, plan.height) == (768, 1024)


def test_the_style_comes_from_the_measured_references() -> None:
    outcome = plan_images(request(layout_spec=ALTERNATING, reference_analyses=[reference("赛博朋克 城市 夜景")]))
    plans = outcome.patch.image_plans or []
    assert plans and all(p.style == "cyberpunk" and "赛博朋克" in p.prompt for p in plans)
    assert all(style_family(p.prompt) == "cyberpunk" for p in plans)  # the renderer will draw that style
    assert "赛博朋克" in outcome.summary and "3 张" in outcome.summary

    watercolour = plans_of(request(reference_analyses=[reference("水彩 花园")]))
    assert all(p.style == "watercolor" and "水彩" in p.prompt for p in watercolour)


def test_the_supervisors_guidance_and_focus_areas_never_reach_a_prompt() -> None:
    # Was: appended to every prompt ("要求：为每个图片位写生成计划…" reached the image models, issue 29).
    req = request(layout_spec=ALTERNATING).model_copy(
        update={"guidance": "为每个图片位写生成计划，风格与参考图一致", "focus_areas": ["画面", "风格"]}
    )
    plans = plans_of(req)
    assert plans == plans_of(request(layout_spec=ALTERNATING))
    assert not any("要求" in p.prompt or "生成计划" in p.prompt or "重点：" in p.prompt for p in plans)


def test_plans_are_deterministic_and_seeds_differ_by_plan() -> None:
    req = request(layout_spec=ALTERNATING, reference_analyses=[reference("油画 秋天")])
    first, second = plan_images(req), plan_images(req)
    assert first == second
    seeds = [p.seed for p in first.patch.image_plans or []]
    assert len(set(seeds)) == len(seeds) and all(0 <= seed < 2**31 for seed in seeds)
    other_topic = plans_of(request(topic="周末露营装备", layout_spec=ALTERNATING))
    assert [p.seed for p in other_topic] != seeds


def test_only_image_plans_are_written_and_the_outcome_is_offline() -> None:
    outcome = plan_images(request(layout_spec=ALTERNATING))
    assert outcome.patch.written() == {"image_plans"}
    assert outcome.offline is True and outcome.clarification is None
    assert "3 张" in outcome.summary and "未指定风格" in outcome.summary


def test_each_slot_gets_its_own_composition_and_a_block_with_numbers_a_chart() -> None:
    # Was: one prompt shape for every slot, so the renderer drew the same planet in four palettes (issue 29).
    plans = plans_of(request(layout_spec=ALTERNATING))
    compositions = [composition_for(p.prompt) for p in plans]
    assert plans[0].slot == "cover" and compositions[0] == "cover"
    assert compositions[-1] == "checklist" and len(set(compositions)) == len(compositions)
