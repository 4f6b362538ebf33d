"""The offline review: each quality dimension falls for its own measured cause and stays high otherwise; approval
needs all five at 0.6 or more; only the review's own fields are written."""

import dataclasses
import hashlib
from typing import Any

import pytest

from activities.content.offline.review import review_post
from imaging.measurements import describe, measure_image
from imaging.rendering import encode_png, render_text_to_image
from models.content.agents import AgentName, AgentOutcome, AgentRequest, ContentView
from models.content.artifacts import (
    HASHTAG_COUNT,
    QUALITY_THRESHOLD,
    ContentBlock,
    CreativeBrief,
    EvidenceItem,
    GeneratedContent,
    ImagePlan,
    LayoutSlot,
    LayoutSpec,
    QualityDimension,
    QualityScores,
    ReferenceAnalysis,
)

TOPIC = "通勤族的高效早餐"
BRIEF = CreativeBrief(
    topic=TOPIC,
    platform="xiaohongshu",
    audience="职场人",
    tone="亲切种草",
    key_messages=["早餐重要", "燕麦杯快手", "水果便携"],
)
EVIDENCE = [
    EvidenceItem(claim="调查显示 62% 的通勤族每周至少两天不吃早餐", source="note-1", kind="statistic"),
    EvidenceItem(claim="燕麦富含膳食纤维，饱腹感可以维持到午饭前", source="note-2"),
    EvidenceItem(claim="一杯隔夜燕麦只需 5 分钟准备", source="note-3", kind="tip"),
    EvidenceItem(claim="香蕉含钾，有助于缓解上午的疲劳感", source="model"),
]
BLOCKS = [
    ContentBlock(
        id="b1",
        heading="为什么要吃早餐",
        text="调查显示，62%的通勤族每周至少两天不吃早餐。空腹上班，上午容易犯困。早餐是一天能量的起点。",
    ),
    ContentBlock(
        id="b2",
        heading="五分钟隔夜燕麦杯",
        text="燕麦富含膳食纤维，饱腹感可以维持到午饭前。前一晚把燕麦和酸奶装进杯子。第二天拿出来只要5分钟。",
    ),
    ContentBlock(
        id="b3",
        heading="便携水果搭配",
        text="香蕉含钾，有助于缓解疲劳。苹果耐放，放进包里不怕压。两样水果配一杯燕麦，营养就齐了。",
    ),
]
HASHTAGS = ["#通勤早餐", "#燕麦杯", "#打工人"]
GOOD_BODY = "\n\n".join(f"{block.heading}\n{block.text}" for block in BLOCKS) + "\n\n" + " ".join(HASHTAGS)
CONTENT = GeneratedContent(title="通勤族5分钟早餐", body=GOOD_BODY, blocks=BLOCKS, hashtags=HASHTAGS)
LAYOUT = LayoutSpec(
    layout="alternating",
    slots=[
        LayoutSlot(kind="image", image_slot="cover"),
        LayoutSlot(kind="text", block_id="b1"),
        LayoutSlot(kind="image", image_slot="img1"),
        LayoutSlot(kind="text", block_id="b2"),
        LayoutSlot(kind="image", image_slot="img2"),
        LayoutSlot(kind="text", block_id="b3"),
    ],
    image_count=3,
)


def plan(plan_id: str, slot: str, prompt: str) -> ImagePlan:
    return ImagePlan(
        plan_id=plan_id,
        slot=slot,
        prompt=prompt,
        width=768,
        height=1024,
        seed=int(plan_id[1:]) * 11,
        style="cyberpunk",
    )


PLANS = [
    plan("p1", "cover", f"{TOPIC}，封面主视觉，赛博朋克风格"),
    plan("p2", "img1", f"{TOPIC}｜为什么要吃早餐：空腹上班容易犯困，赛博朋克风格"),
    plan("p3", "img2", f"{TOPIC}｜五分钟隔夜燕麦杯：燕麦和酸奶装进杯子，赛博朋克风格"),
]


def render_png(prompt: str, seed: int) -> bytes:
    # Smaller than the plans' 768x1024 to keep the tests fast: the review measures colours, not size.
    return encode_png(render_text_to_image(prompt, seed=seed, width=256, height=256, style_strength=0.8))


def reference(prompt: str, seed: int) -> ReferenceAnalysis:
    m = measure_image(render_png(prompt, seed))
    return ReferenceAnalysis(image=f"blob:references/{seed}.png", description=describe(m), **dataclasses.asdict(m))


@pytest.fixture(scope="module")
def images() -> dict[str, bytes]:
    return {p.plan_id: render_png(p.prompt, p.seed) for p in PLANS}


@pytest.fixture(scope="module")
def cyberpunk_references() -> list[ReferenceAnalysis]:
    return [reference("赛博朋克 霓虹 街道", 101), reference("赛博朋克 城市 夜景", 102)]


def asset_ids(images: dict[str, bytes]) -> dict[str, str]:
    return {plan_id: f"blob:images/{hashlib.sha256(data).hexdigest()}.png" for plan_id, data in images.items()}


def review(
    images: dict[str, bytes],
    references: list[ReferenceAnalysis],
    *,
    evidence: list[EvidenceItem] = EVIDENCE,
    **view: Any,
) -> AgentOutcome:
    fields: dict[str, Any] = {
        "topic": TOPIC,
        "creative_brief": BRIEF,
        "reference_analyses": references,
        "layout_spec": LAYOUT,
        "image_plans": PLANS,
        "generated_content": CONTENT,
        "generated_image_asset_ids": asset_ids(images),
        **view,
    }
    request = AgentRequest(agent=AgentName.REVIEW, view=ContentView.model_validate(fields))
    return review_post(request, evidence, images)


def scores_of(outcome: AgentOutcome) -> QualityScores:
    assert outcome.patch.quality_scores is not None
    return outcome.patch.quality_scores


def others_stay_good(scores: QualityScores, low: QualityDimension) -> None:
    for dimension in QualityDimension:
        if dimension is not low:
            assert scores.score(dimension) >= QUALITY_THRESHOLD, (dimension, scores)
    assert scores.score(low) < QUALITY_THRESHOLD, (low, scores)


def test_a_good_post_is_approved_on_all_five(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    outcome = review(images, cyberpunk_references)
    scores = scores_of(outcome)
    assert all(scores.score(d) >= QUALITY_THRESHOLD for d in QualityDimension), scores
    assert scores.info_density >= 0.8 and scores.text_image_alignment == 1.0 and scores.readability == 1.0
    assert scores.platform_fit == 1.0
    feedback = outcome.patch.review_feedback
    assert feedback is not None and feedback.approved is True and feedback.issues == []
    assert set(feedback.findings) == {d.value for d in QualityDimension}
    assert (
        "4 条" in feedback.findings["infoDensity"] and "3 个有规划且已生成" in feedback.findings["textImageAlignment"]
    )
    assert "审核通过" in feedback.summary
    assert outcome.patch.written() == {"review_feedback", "quality_scores"}
    assert outcome.offline is True


def test_info_density_falls_when_the_body_uses_little_evidence(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    unused = [
        EvidenceItem(claim="全国咖啡消费量五年增长 37%", source="note-4", kind="statistic"),
        EvidenceItem(claim="每天步行 8000 步可降低心血管风险", source="note-5", kind="statistic"),
        EvidenceItem(claim="午睡二十分钟能明显提升下午专注力", source="model"),
        EvidenceItem(claim="早起喝温水有助于唤醒肠胃", source="model"),
    ]
    outcome = review(images, cyberpunk_references, evidence=[EVIDENCE[0], *unused])
    scores = scores_of(outcome)
    others_stay_good(scores, QualityDimension.INFO_DENSITY)
    assert scores.info_density == pytest.approx(0.27)  # 1 of the 3 wanted: 0.8 / 3
    feedback = outcome.patch.review_feedback
    assert feedback is not None and not feedback.approved
    assert "用到了 1 条" in feedback.findings["infoDensity"]
    assert any(issue.startswith("信息密度") for issue in feedback.issues)

    nothing = scores_of(review(images, cyberpunk_references, evidence=[]))
    assert nothing.info_density == 0.3


def test_text_image_alignment_falls_when_slots_have_no_generated_image(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    only_cover = {"p1": images["p1"]}
    outcome = review(only_cover, cyberpunk_references)
    scores = scores_of(outcome)
    others_stay_good(scores, QualityDimension.TEXT_IMAGE_ALIGNMENT)
    assert scores.text_image_alignment == pytest.approx(0.33)
    feedback = outcome.patch.review_feedback
    assert feedback is not None and "1 个有规划且已生成" in feedback.findings["textImageAlignment"]


def test_text_image_alignment_is_discounted_when_prompts_miss_their_blocks(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    unrelated = [PLANS[0], *(p.model_copy(update={"prompt": "赛博朋克 霓虹 星球"}) for p in PLANS[1:])]
    scores = scores_of(review(images, cyberpunk_references, image_plans=unrelated))
    assert scores.text_image_alignment == pytest.approx(0.6)  # every slot filled, no prompt shares a keyword
    # Without a layout the plans themselves are the slots: two of three generated.
    no_layout = scores_of(review({k: images[k] for k in ("p1", "p2")}, cyberpunk_references, layout_spec=None))
    assert no_layout.text_image_alignment == pytest.approx(0.67)


def test_style_consistency_falls_when_images_do_not_match_the_references(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    watercolour = [reference("水彩 花园", 201), reference("水彩 春天 花朵", 202)]
    outcome = review(images, watercolour)
    scores = scores_of(outcome)
    others_stay_good(scores, QualityDimension.STYLE_CONSISTENCY)
    feedback = outcome.patch.review_feedback
    assert feedback is not None and "watercolor" in feedback.findings["styleConsistency"]
    matching = scores_of(review(images, cyberpunk_references)).style_consistency
    assert matching >= scores.style_consistency + 0.3

    unreferenced = scores_of(review(images, []))
    assert unreferenced.style_consistency == 1.0


def test_readability_falls_for_long_sentences(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    run_on = GOOD_BODY.replace("。", "，").replace("\n", "，")  # one sentence of about 180 characters
    content = CONTENT.model_copy(update={"body": run_on})
    outcome = review(images, cyberpunk_references, generated_content=content)
    scores = scores_of(outcome)
    others_stay_good(scores, QualityDimension.READABILITY)
    assert scores.readability == pytest.approx(0.3)
    feedback = outcome.patch.review_feedback
    assert feedback is not None and "平均句长 1" in feedback.findings["readability"]


def test_readability_loses_a_tenth_per_paragraph_over_300_characters(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    one_paragraph = "".join(block.text for block in BLOCKS) * 2  # short sentences, but one line of ~270+ characters
    long_line = one_paragraph + "再补充一句。" * 10
    assert len(long_line) > 300
    content = CONTENT.model_copy(update={"body": f"{long_line}\n\n{long_line}\n\n" + " ".join(HASHTAGS)})
    scores = scores_of(review(images, cyberpunk_references, generated_content=content))
    assert scores.readability == pytest.approx(0.8)


def test_platform_fit_falls_for_a_long_title_and_no_hashtags(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    body = GOOD_BODY.replace(" ".join(HASHTAGS), "")
    content = CONTENT.model_copy(
        update={"title": "通勤族必看：五分钟搞定营养又好吃的高效早餐完整攻略", "body": body, "hashtags": []}
    )
    outcome = review(images, cyberpunk_references, generated_content=content)
    scores = scores_of(outcome)
    others_stay_good(scores, QualityDimension.PLATFORM_FIT)
    assert scores.platform_fit == pytest.approx(0.5)
    feedback = outcome.patch.review_feedback
    assert feedback is not None and "话题标签 0 个" in feedback.findings["platformFit"]


def test_platform_fit_falls_for_more_hashtags_than_the_platforms_count(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    tags = [f"#标签{i}" for i in range(HASHTAG_COUNT[1] + 3)]
    outcome = review(images, cyberpunk_references, generated_content=CONTENT.model_copy(update={"hashtags": tags}))
    scores = scores_of(outcome)
    assert scores.platform_fit == pytest.approx(1 - 0.3)
    feedback = outcome.patch.review_feedback
    assert feedback is not None and "应为 3–5 个" in feedback.findings["platformFit"]


def test_platform_fit_measures_body_length_against_the_platform(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    wechat = BRIEF.model_copy(update={"platform": "wechat"})
    scores = scores_of(review(images, cyberpunk_references, creative_brief=wechat))
    # About 170 characters against wechat's 500 at least: far short.
    assert 0.2 <= scores.platform_fit < 0.5


def test_nothing_to_review_without_generated_content(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    outcome = review(images, cyberpunk_references, generated_content=None)
    scores = scores_of(outcome)
    assert (scores.info_density, scores.text_image_alignment, scores.readability, scores.platform_fit) == (0, 0, 0, 0)
    feedback = outcome.patch.review_feedback
    assert feedback is not None and not feedback.approved and "没有可审核的正文" in feedback.summary
    assert outcome.patch.written() == {"review_feedback", "quality_scores"}


def test_a_post_of_repeated_headings_and_filler_is_not_approved_and_says_why(
    images: dict[str, bytes], cyberpunk_references: list[ReferenceAnalysis]
) -> None:
    # Was: the offline post "打工人的咖啡续命指南的平台 / …的受众 / …的核心信息", each heading followed by template
    # filler, scored 1.00 on all five dimensions and was approved (issue 29).
    topic = "打工人的咖啡续命指南"
    headings = [f"{topic}的平台", f"{topic}的受众", f"{topic}的核心信息"]
    filler = (
        "看似简单，细节里却有不少门道。每个人的情况不同，找到适合自己的方式最重要。多做比较、多看反馈，判断会更准确。"
    )
    blocks = [
        ContentBlock(id=f"b{i + 1}", heading=h, text=f"关于{h}，有几点值得展开说说。{filler}")
        for i, h in enumerate(headings)
    ]
    body = "\n".join(f"{block.heading}\n{block.text}" for block in blocks) + "\n#咖啡 #打工人 #职场"
    bad = GeneratedContent(title="打工人的咖啡续命指南", body=body, blocks=blocks, hashtags=HASHTAGS)

    brief = BRIEF.model_copy(update={"topic": topic})
    outcome = review(images, cyberpunk_references, generated_content=bad, creative_brief=brief, topic=topic)

    feedback = outcome.patch.review_feedback
    assert feedback is not None and not feedback.approved
    readability = feedback.findings[QualityDimension.READABILITY.value]
    assert "重复同一词干" in readability and "每个小标题都在重复话题" in readability
    assert "模板套话" in feedback.findings[QualityDimension.INFO_DENSITY.value]
    scores = outcome.patch.quality_scores
    assert scores is not None
    assert scores.readability < QUALITY_THRESHOLD and scores.info_density < QUALITY_THRESHOLD
    assert any("可读性" in issue for issue in feedback.issues) and any("信息密度" in issue for issue in feedback.issues)
