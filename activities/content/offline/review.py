"""The offline review_agent: the five quality scores (seed 001 质量回退逻辑) computed from what is really there —
the evidence the body uses, the image slots that have a plan and a generated image whose prompt matches its block,
the generated images' measured palettes against the references', sentence and paragraph lengths, and the
platform's length, title and hashtag conventions — with a sentence per dimension saying what was measured. Template
filler lowers the information density and headings that repeat a stem or all echo the topic lower readability
(`review_text`). An English topic gets its findings, issues and summary in English (`models.content.language`).
Synchronous CPU work (it measures images); the activity reads the images from the blob store and calls it in a
thread. The patch writes only `review_feedback` and `quality_scores`."""

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from activities.content.offline.brief import topic_core
from activities.content.offline.review_text import FILLER_SHARE, check_headings, filler_share
from imaging.measurements import measure_image, nearest_style, palette_distance
from models.content.agents import AgentOutcome, AgentRequest, ContentView, StatePatch
from models.content.artifacts import (
    BODY_LENGTH,
    DIMENSION_LABELS,
    HASHTAG_COUNT,
    HASHTAG_PLATFORMS,
    PLATFORM_LABELS,
    QUALITY_THRESHOLD,
    TITLE_LIMIT,
    EvidenceItem,
    GeneratedContent,
    ImagePlan,
    QualityDimension,
    QualityScores,
    ReviewFeedback,
    is_quality_approved,
)
from models.content.language import DIMENSION_LABELS_EN, PLATFORM_LABELS_EN
from models.writing.language import written_in_english

EVIDENCE_CHECKED = 6
"""Only the first this-many evidence items are looked for in the body."""
EVIDENCE_TARGET = 3
"""Using this many items (or all of them, when there are fewer) scores `USED_TARGET_SCORE`."""
USED_TARGET_SCORE = 0.8
NO_EVIDENCE_SCORE = 0.3
STYLE_DISTANCE_WEIGHT = 1.6
"""style_consistency = 1 - this x the mean palette distance of the generated images to the references."""
SHORT_SENTENCE, LONG_SENTENCE = 35, 90
"""Mean sentence length (characters) up to which readability is 1.0, and from which it is `LONG_SENTENCE_SCORE`."""
LONG_SENTENCE_SCORE = 0.3
LONG_PARAGRAPH = 300
"""A paragraph (a line) longer than this many characters costs `LONG_PARAGRAPH_PENALTY`."""
LONG_PARAGRAPH_PENALTY = 0.1
POOR_HEADINGS_SCORE = 0.4
"""Readability at most, when the headings repeat a stem or all echo the topic."""

UNKNOWN_PLATFORM_LENGTH, UNKNOWN_PLATFORM_TITLE = (40, 6000), 64
"""The checks when neither the brief nor the run names a platform: a broad length range, no hashtags expected."""
MIN_LENGTH_SCORE = 0.2
MISSING_HASHTAGS_PENALTY, LONG_TITLE_PENALTY = 0.3, 0.2

_UNIT_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:\s?[%％‰]|[A-Za-z]{1,4}\b|\s?[\u4e00-\u9fff])")
"""A number with its unit: `37%`, `2.5万`, `5 分`, `10km`."""
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_ENGLISH_WORD = re.compile(r"[A-Za-z]+")
_SENTENCE_END = re.compile(r"[。！？!?\n]|\.(?!\d)")
_HASHTAG = re.compile(r"#[^\s#]+")
_SPACE = re.compile(r"\s+")
_FUNCTION_CHARS = frozenset("的了是在和与及也都就而着吗呢吧啊你我他她它们这那有个")
"""Bigrams with one of these say nothing about the subject; they are not counted as shared keywords."""
_STOP_WORDS = frozenset({"the", "and", "for", "with", "that", "this", "from", "are", "was", "you", "your", "our"})
_CJK_CHUNK = 4
_TEXT_DIMENSIONS = (
    QualityDimension.INFO_DENSITY,
    QualityDimension.TEXT_IMAGE_ALIGNMENT,
    QualityDimension.READABILITY,
    QualityDimension.PLATFORM_FIT,
)


@dataclass(frozen=True)
class _Measured:
    score: float
    finding: str


def review_post(request: AgentRequest, evidence: list[EvidenceItem], images: dict[str, bytes]) -> AgentOutcome:
    """Score the post on the five dimensions; approved when every one reaches `QUALITY_THRESHOLD`.

    `evidence` is the whole evidence list (read from the blob store), `images` the generated images' PNG bytes by
    plan id. Without generated content every dimension that judges text is 0.
    """
    view = request.view
    content = view.generated_content
    topic = view.creative_brief.topic if view.creative_brief is not None else view.topic
    en = written_in_english(topic)
    measured = {QualityDimension.STYLE_CONSISTENCY: _style_consistency(view, images, en)}
    if content is None:
        for dimension in _TEXT_DIMENSIONS:
            measured[dimension] = _Measured(0.0, _say(en, "没有正文可审核（文案尚未生成）", "no body to review yet"))
    else:
        sections = "\n".join(block.text for block in content.blocks) or content.body
        measured[QualityDimension.INFO_DENSITY] = _without_filler(_info_density(content, evidence, en), sections, en)
        measured[QualityDimension.TEXT_IMAGE_ALIGNMENT] = _text_image_alignment(view, content, images, en)
        measured[QualityDimension.READABILITY] = _with_headings(_readability(content.body, en), content, topic, en)
        measured[QualityDimension.PLATFORM_FIT] = _platform_fit(view, content, en)
    scores = QualityScores(
        info_density=measured[QualityDimension.INFO_DENSITY].score,
        text_image_alignment=measured[QualityDimension.TEXT_IMAGE_ALIGNMENT].score,
        style_consistency=measured[QualityDimension.STYLE_CONSISTENCY].score,
        readability=measured[QualityDimension.READABILITY].score,
        platform_fit=measured[QualityDimension.PLATFORM_FIT].score,
    )
    low = [dimension for dimension in QualityDimension if scores.score(dimension) < QUALITY_THRESHOLD]
    issues = [
        f"{_label(dimension, en)} {scores.score(dimension):.2f}{_say(en, '：', ': ')}{measured[dimension].finding}"
        for dimension in low
    ]
    approved = is_quality_approved(scores)
    feedback = ReviewFeedback(
        approved=approved,
        summary=_summary(scores, low, nothing_written=content is None, en=en)[:1000],
        issues=issues,
        findings={dimension.value: measured[dimension].finding for dimension in QualityDimension},
    )
    verdict = _say(en, "审核通过：", "Approved: ") if approved else _say(en, "审核未通过：", "Not approved: ")
    summary = verdict + _score_list(scores, en)
    return AgentOutcome(
        patch=StatePatch(review_feedback=feedback, quality_scores=scores), summary=summary[:1000], offline=True
    )


# --- the five dimensions ---------------------------------------------------------------------------


def _info_density(content: GeneratedContent, evidence: list[EvidenceItem], en: bool) -> _Measured:
    checked = evidence[:EVIDENCE_CHECKED]
    if not checked:
        return _Measured(
            NO_EVIDENCE_SCORE,
            _say(
                en,
                "没有证据条目可核对，正文缺少可查证的事实和数据",
                "no evidence to check: the body has no facts to verify",
            ),
        )
    used = [item for item in checked if _uses(content.body, item.claim)]
    target = min(EVIDENCE_TARGET, len(checked))
    if len(used) < target:
        score = USED_TARGET_SCORE * len(used) / target
    elif len(checked) == target:
        score = 1.0
    else:
        score = USED_TARGET_SCORE + (1 - USED_TARGET_SCORE) * (len(used) - target) / (len(checked) - target)
    finding = _say(
        en,
        f"前 {len(checked)} 条证据中正文用到了 {len(used)} 条（至少应用 {target} 条）",
        f"the body uses {len(used)} of the first {len(checked)} evidence items (at least {target} expected)",
    )
    missing = [item.claim[:20] for item in checked if item not in used][:2]
    if missing and len(used) < target:
        finding += _say(en, "，未用到：" + "；".join(missing), ", unused: " + " / ".join(missing))
    return _Measured(_clamp(score), finding)


def _without_filler(measured: _Measured, text: str, en: bool) -> _Measured:
    """Information density discounted by the share of template filler in the sections' text (the opening and the
    call to action frame every post), when that share is over `FILLER_SHARE`."""
    filler, sentences = filler_share(text)
    if not sentences:
        return measured
    share = filler / sentences
    finding = measured.finding + _say(
        en,
        f"；段落中 {filler}/{sentences} 句是模板套话",
        f"; {filler}/{sentences} sentences of the sections are template filler",
    )
    if share <= FILLER_SHARE:
        return _Measured(measured.score, finding)
    over = _say(en, f"（超过 {FILLER_SHARE:.0%}）", f" (over {FILLER_SHARE:.0%})")
    return _Measured(_clamp(min(measured.score, 1 - share)), finding + over)


def _with_headings(measured: _Measured, content: GeneratedContent, topic: str, en: bool) -> _Measured:
    """Readability capped at `POOR_HEADINGS_SCORE` when the headings repeat a stem or all echo the topic."""
    problems = check_headings(content, topic_core(topic), en).problems
    if not problems:
        return measured
    separator = _say(en, "；", "; ")
    return _Measured(min(measured.score, POOR_HEADINGS_SCORE), separator.join([measured.finding, *problems]))


def _text_image_alignment(
    view: ContentView, content: GeneratedContent, images: dict[str, bytes], en: bool
) -> _Measured:
    plans_in_slots = _plans_per_slot(view)
    if not plans_in_slots:
        return _Measured(
            0.0, _say(en, "没有图片位或配图规划，图文无法对应", "no image slots or plans to match the text")
        )
    ready = [
        plan
        for plan in plans_in_slots
        if plan is not None and plan.plan_id in view.generated_image_asset_ids and plan.plan_id in images
    ]
    coverage = len(ready) / len(plans_in_slots)
    illustrating = [plan for plan in plans_in_slots if plan is not None and plan.slot != "cover"]
    topic = view.creative_brief.topic if view.creative_brief else view.topic
    whole_text = f"{content.title} {content.body}".replace(topic, " ")  # the topic alone aligns nothing
    sharing = [plan for plan in illustrating if _shares_keyword(plan.prompt.replace(topic, " "), whole_text)]
    factor = 0.6 + 0.4 * len(sharing) / len(illustrating) if illustrating else 1.0
    if en:
        where = "layout" if view.layout_spec is not None else "image plan"
        finding = f"{len(ready)} of the {where}'s {len(plans_in_slots)} image slots have a plan and a generated image"
    else:
        where = "版式" if view.layout_spec is not None else "配图规划"
        finding = f"{where}的 {len(plans_in_slots)} 个图片位中 {len(ready)} 个有规划且已生成图片"
    if illustrating:
        finding += _say(
            en,
            f"；{len(sharing)}/{len(illustrating)} 张配图的提示词与正文有共同关键词",
            f"; {len(sharing)}/{len(illustrating)} image prompts share a keyword with the text",
        )
    return _Measured(_clamp(coverage * factor), finding)


def _style_consistency(view: ContentView, images: dict[str, bytes], en: bool) -> _Measured:
    reference: list[str] = []
    for analysis in view.reference_analyses:
        reference.extend(colour for colour in analysis.palette if colour not in reference)
    if not reference:
        return _Measured(1.0, _say(en, "没有参考图，无需匹配风格", "no reference images: no style to match"))
    distances: list[float] = []
    unreadable = 0
    for plan_id in sorted(images):
        try:
            palette = measure_image(images[plan_id]).palette
        except ValueError:
            unreadable += 1
            continue
        distances.append(palette_distance(palette, reference))
    if not distances:
        if unreadable:
            return _Measured(
                0.0,
                _say(
                    en,
                    f"没有可测量的生成图片（{unreadable} 张无法解码）",
                    f"no generated image to measure ({unreadable} could not be decoded)",
                ),
            )
        return _Measured(0.0, _say(en, "没有生成图片可比对", "no generated images to compare"))
    mean = sum(distances) / len(distances)
    family, _ = nearest_style(reference)
    finding = _say(
        en,
        f"{len(distances)} 张生成图与参考图调色板的平均距离 {mean:.2f}（参考图最接近 {family} 风格）",
        f"mean palette distance of {len(distances)} generated images to the references {mean:.2f} "
        f"(the references are nearest the {family} style)",
    )
    if unreadable:
        finding += _say(en, f"，{unreadable} 张无法解码", f", {unreadable} could not be decoded")
    return _Measured(_clamp(1 - STYLE_DISTANCE_WEIGHT * mean), finding)


def _readability(body: str, en: bool) -> _Measured:
    sentences = [_length(part) for part in _SENTENCE_END.split(body) if _length(part)]
    if not sentences:
        return _Measured(0.0, _say(en, "正文为空", "the body is empty"))
    mean = sum(sentences) / len(sentences)
    if mean <= SHORT_SENTENCE:
        score = 1.0
    elif mean >= LONG_SENTENCE:
        score = LONG_SENTENCE_SCORE
    else:
        score = 1.0 - (1.0 - LONG_SENTENCE_SCORE) * (mean - SHORT_SENTENCE) / (LONG_SENTENCE - SHORT_SENTENCE)
    long_paragraphs = sum(len(line.strip()) > LONG_PARAGRAPH for line in body.split("\n"))
    score -= LONG_PARAGRAPH_PENALTY * long_paragraphs
    finding = _say(
        en,
        f"平均句长 {mean:.0f} 字（{len(sentences)} 句），{long_paragraphs} 段超过 {LONG_PARAGRAPH} 字",
        f"mean sentence length {mean:.0f} characters ({len(sentences)} sentences), "
        f"{long_paragraphs} paragraphs over {LONG_PARAGRAPH} characters",
    )
    return _Measured(_clamp(score), finding)


def _platform_fit(view: ContentView, content: GeneratedContent, en: bool) -> _Measured:
    platform = view.creative_brief.platform if view.creative_brief else view.platform
    low, high = BODY_LENGTH.get(platform or "", UNKNOWN_PLATFORM_LENGTH)
    title_limit = TITLE_LIMIT.get(platform or "", UNKNOWN_PLATFORM_TITLE)
    length = _length(content.body)
    if length < low:
        score = max(MIN_LENGTH_SCORE, 1 - (low - length) / low)
    elif length > high:
        score = max(MIN_LENGTH_SCORE, 1 - (length - high) / high)
    else:
        score = 1.0
    hashtags = len(content.hashtags) or len(_HASHTAG.findall(content.body))
    if en:
        label = PLATFORM_LABELS_EN.get(platform or "", "unknown platform")
        parts = [f"{label}: body {length} characters ({low}–{high} recommended)"]
    else:
        label = PLATFORM_LABELS.get(platform or "", "平台未知")
        parts = [f"{label}：正文 {length} 字（建议 {low}–{high} 字）"]
    if platform in HASHTAG_PLATFORMS:
        parts.append(_say(en, f"话题标签 {hashtags} 个", f"{hashtags} hashtags"))
        if hashtags == 0 or hashtags > HASHTAG_COUNT[1]:
            score -= MISSING_HASHTAGS_PENALTY
            low_tags, high_tags = HASHTAG_COUNT
            parts[-1] += _say(en, f"（应为 {low_tags}–{high_tags} 个）", f" ({low_tags}–{high_tags} expected)")
    title = len(content.title.strip())
    parts.append(
        _say(en, f"标题 {title} 字（上限 {title_limit} 字）", f"title {title} characters (at most {title_limit})")
    )
    if title > title_limit:
        score -= LONG_TITLE_PENALTY
    return _Measured(_clamp(score), _say(en, "，", ", ").join(parts))


# --- helpers ----------------------------------------------------------------------------------------


def _plans_per_slot(view: ContentView) -> list[ImagePlan | None]:
    """The plan for each image slot of the layout (None where no plan fills it); without a layout, every plan."""
    if view.layout_spec is None:
        return list(view.image_plans)
    by_slot = {plan.slot: plan for plan in view.image_plans}
    image_slots = [slot for slot in view.layout_spec.slots if slot.kind == "image"]
    plans: list[ImagePlan | None] = []
    for index, slot in enumerate(image_slots):
        if slot.image_slot is not None:
            plans.append(by_slot.get(slot.image_slot))
        else:  # an unnamed slot: the plan in the same position
            plans.append(view.image_plans[index] if index < len(view.image_plans) else None)
    return plans


def _uses(body: str, claim: str) -> bool:
    """Whether the body carries the claim's key tokens: a number with its unit, else a 4-character Chinese chunk
    or two consecutive English words, else the whole claim (whitespace and the width of `%` ignored)."""
    compact = _normalise(body)
    numbers = [_normalise(token) for token in _UNIT_NUMBER.findall(claim)]
    if numbers:
        return any(re.search(rf"(?<![\d.]){re.escape(token)}", compact) for token in numbers)
    chunks = [
        run[start : start + _CJK_CHUNK] for run in _CJK_RUN.findall(claim) for start in range(len(run) - _CJK_CHUNK + 1)
    ]
    words = [word.lower() for word in _ENGLISH_WORD.findall(claim)]
    pairs = [f"{first} {second}" for first, second in itertools.pairwise(words)]
    if not chunks and not pairs:
        whole = _normalise(claim)
        return len(whole) >= 2 and whole in compact
    lowered = " ".join(body.lower().split())
    return any(chunk in compact for chunk in chunks) or any(re.search(rf"\b{pair}\b", lowered) for pair in pairs)


def _shares_keyword(prompt: str, text: str) -> bool:
    """At least one Chinese bigram (not a function-word pair) or English word of 3+ letters in common."""
    return bool(_keywords(prompt) & _keywords(text))


def _keywords(text: str) -> set[str]:
    bigrams = {
        run[start : start + 2]
        for run in _CJK_RUN.findall(text)
        for start in range(len(run) - 1)
        if not _FUNCTION_CHARS.intersection(run[start : start + 2])
    }
    words = {word.lower() for word in _ENGLISH_WORD.findall(text) if len(word) >= 3}
    return bigrams | (words - _STOP_WORDS)


def _normalise(text: str) -> str:
    """No whitespace, and the full-width percent sign as `%`."""
    return _SPACE.sub("", text).replace("％", "%")


def _length(text: str) -> int:
    return len(_SPACE.sub("", text))


def _clamp(score: float) -> float:
    return round(min(1.0, max(0.0, score)), 2)


def _say(en: bool, chinese: str, english: str) -> str:
    """The text in the post's language."""
    return english if en else chinese


def _label(dimension: QualityDimension, en: bool) -> str:
    return DIMENSION_LABELS_EN[dimension] if en else DIMENSION_LABELS[dimension]


def _score_list(scores: QualityScores, en: bool) -> str:
    return _say(en, "、", ", ").join(
        f"{_label(dimension, en)} {scores.score(dimension):.2f}" for dimension in QualityDimension
    )


def _summary(scores: QualityScores, low: Iterable[QualityDimension], *, nothing_written: bool, en: bool) -> str:
    listed = _score_list(scores, en)
    if nothing_written:
        return _say(
            en,
            "没有可审核的正文（文案尚未生成），文字相关各项记 0 分；" + listed,
            "No body to review yet: the text dimensions score 0; " + listed,
        )
    low = list(low)
    if not low:
        return _say(
            en,
            f"审核通过：五项质量分均达到 {QUALITY_THRESHOLD}（{listed}）",
            f"Approved: all five quality scores reach {QUALITY_THRESHOLD} ({listed})",
        )
    if en:
        weak = ", ".join(f"{_label(dimension, en)} ({scores.score(dimension):.2f})" for dimension in low)
        return f"Not approved: {weak} below {QUALITY_THRESHOLD}; all scores: {listed}"
    weak = "、".join(f"{DIMENSION_LABELS[dimension]}（{scores.score(dimension):.2f}）" for dimension in low)
    return f"审核未通过：{weak}低于 {QUALITY_THRESHOLD}；全部得分：{listed}"
