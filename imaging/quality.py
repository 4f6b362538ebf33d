"""The Critic's checks: a real, explainable score computed from the actual image (seed 000 §3.4, 004 §4.4).

Every check looks at the rendered PNG (or at the prompt that produced it), has a weight and a sentence saying
what it found. Weights sum to 1 and the score is the sum of the weights of the passed checks, so a score
can always be explained by the checks that failed, each of which also yields a suggestion in Chinese.
"""

import math
import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PIL import Image
from pydantic import BaseModel

from imaging.masks import mask_from_image
from imaging.rendering import ImageDecodeError, decode_image, style_family
from models.image.state import CriticCheck, PromptReview, TaskType

PASS_THRESHOLD = 0.7
"""Seed 000 §8.4: a score of at least 0.7 passes."""
REGENERATE_BELOW = 0.6
"""Seed 000 §8.4 / 004 §4.4: below 0.6 the image is regenerated (while retries remain); from 0.6 up to
`PASS_THRESHOLD` it fails but is returned with optimisation hints."""
BLANK_STDDEV = 4.0
"""Luminance standard deviation (0–255) at or below which an image counts as blank."""
MIN_CHANGE_INSIDE = 10.0
"""Mean absolute difference (0–255, over RGB) inside the mask above which the region counts as repainted."""

GENERAL_WEIGHTS = {"decodes": 0.05, "size": 0.35, "not_blank": 0.45, "subject": 0.1, "style": 0.05}
"""Weights for text_to_image and parameter_adjustment: a wrong size or a blank image cannot pass."""
INPAINTING_WEIGHTS = {
    "decodes": 0.03,
    "size": 0.03,
    "not_blank": 0.03,
    "subject": 0.03,
    "style": 0.03,
    "changed_inside_mask": 0.42,
    "unchanged_outside_mask": 0.43,
}
"""Weights for inpainting, when the base image and mask are at hand: the mask is what matters."""

_FILLER = re.compile(r"^[一两几]?[只个条位幅张朵头匹棵座片轮辆艘]|(风格|风|的)$")


class Assessment(BaseModel):
    """The Critic's verdict on one image: score 0..1 (2 decimals), the checks behind it and suggestions."""

    score: float
    checks: list[CriticCheck]
    suggestions: list[str]


@dataclass(frozen=True)
class _Finding:
    name: str
    passed: bool
    detail: str
    suggestion: str


def assess_image(
    image_png: bytes,
    *,
    expected_width: int,
    expected_height: int,
    prompt: str,
    subject: str | None,
    style: str | None,
    task_type: TaskType,
    base_image: bytes | None = None,
    mask: bytes | None = None,
    review: PromptReview | None = None,
) -> Assessment:
    """Score an image with weighted checks; the mask checks run for inpainting given `base_image` and `mask`;
    with an LLM's `review`, it decides the subject and style checks instead of keyword matching."""
    try:
        decoded = decode_image(image_png)
    except ImageDecodeError as exc:
        failed = CriticCheck(name="decodes", passed=False, weight=1.0, detail=f"图片无法解码：{exc}")
        return Assessment(score=0.0, checks=[failed], suggestions=["重新生成：图片文件无法解码"])
    image = decoded.convert("RGB")
    findings = [
        _Finding("decodes", True, f"图片可以解码（{decoded.format}，{len(image_png)} 字节）", ""),
        _size(image, expected_width, expected_height),
        _not_blank(image),
        _subject(subject, prompt) if review is None else _reviewed("subject", "主体", subject, review),
        _style(style, prompt) if review is None else _reviewed("style", "风格", style, review),
    ]
    weights = GENERAL_WEIGHTS
    if task_type == "inpainting" and base_image is not None and mask is not None:
        weights = INPAINTING_WEIGHTS
        findings += _mask_findings(image, decode_image(base_image).convert("RGB"), mask)
    checks = [CriticCheck(name=f.name, passed=f.passed, weight=weights[f.name], detail=f.detail) for f in findings]
    score = math.fsum(check.weight for check in checks if check.passed)
    suggestions = [f.suggestion for f in findings if not f.passed]
    return Assessment(score=round(score, 2), checks=checks, suggestions=suggestions)


def _size(image: Image.Image, width: int, height: int) -> _Finding:
    actual = f"{image.width}x{image.height}"
    if image.size == (width, height):
        return _Finding("size", True, f"尺寸 {actual}，与请求一致", "")
    return _Finding(
        "size",
        False,
        f"尺寸 {actual}，请求的是 {width}x{height}",
        f"重新生成：图片尺寸与请求不符（请求 {width}x{height}，实际 {actual}）",
    )


def _not_blank(image: Image.Image) -> _Finding:
    spread = float(np.asarray(image.convert("L"), dtype=np.float32).std())
    if spread > BLANK_STDDEV:
        return _Finding("not_blank", True, f"亮度标准差 {spread:.1f}，画面有内容", "")
    return _Finding(
        "not_blank",
        False,
        f"亮度标准差 {spread:.1f}，不高于 {BLANK_STDDEV:g}，画面近乎空白",
        "重新生成：图片几乎是纯色，没有画出内容",
    )


def _subject(subject: str | None, prompt: str) -> _Finding:
    if not subject:
        return _Finding("subject", True, "未指定主体，无需检查", "")
    if _mentions(subject, prompt):
        return _Finding("subject", True, f"Prompt 包含主体“{subject}”", "")
    return _Finding("subject", False, f"Prompt 缺少主体“{subject}”", f"修改 Prompt：写明要画的主体“{subject}”")


def _style(style: str | None, prompt: str) -> _Finding:
    if not style:
        return _Finding("style", True, "未指定风格，无需检查", "")
    family = style_family(style)
    if _mentions(style, prompt) or (family is not None and family == style_family(prompt)):
        return _Finding("style", True, f"Prompt 包含风格“{style}”", "")
    return _Finding(
        "style",
        False,
        f"Prompt 缺少风格“{style}”",
        f"修改 Prompt：加入风格关键词“{style}”，或调高风格强度",
    )


def _reviewed(name: str, label: str, term: str | None, review: PromptReview) -> _Finding:
    if not term:
        return _Finding(name, True, f"未指定{label}，无需检查", "")
    covered = review.subject_covered if name == "subject" else review.style_covered
    if covered:
        return _Finding(name, True, f"LLM 评审：Prompt 表达了{label}“{term}”", "")
    hint = review.suggestion or f"修改 Prompt：写明{label}“{term}”"
    return _Finding(name, False, f"LLM 评审：Prompt 没有表达{label}“{term}”", hint)


def _mentions(term: str, prompt: str) -> bool:
    """Whether the prompt names `term`: verbatim, or every word of it without measure words and "风格"."""
    text, wanted = prompt.casefold(), term.casefold().strip()
    words = _FILLER.sub("", wanted).split()
    return wanted in text or (bool(words) and all(word in text for word in words))


def _mask_findings(image: Image.Image, base: Image.Image, mask_png: bytes) -> list[_Finding]:
    if image.size != base.size:
        detail = f"结果尺寸 {image.width}x{image.height} 与原图 {base.width}x{base.height} 不同，无法逐像素比较"
        return [
            _Finding("changed_inside_mask", False, detail, "重新生成：局部重绘的结果必须与原图尺寸相同"),
            _Finding("unchanged_outside_mask", False, detail, "重新生成：蒙版以外的区域必须保持原样"),
        ]
    repaint = np.asarray(mask_from_image(mask_png, base.size)) > 127
    diff = np.abs(np.asarray(image, dtype=np.int16) - np.asarray(base, dtype=np.int16))
    return [_changed_inside(diff, repaint), _unchanged_outside(diff, repaint)]


def _changed_inside(diff: npt.NDArray[np.int16], repaint: npt.NDArray[np.bool_]) -> _Finding:
    suggestion = "重新生成：蒙版区域几乎没有变化，可以把要画的内容描述得更具体"
    if not repaint.any():
        return _Finding("changed_inside_mask", False, "蒙版为空，没有需要重绘的区域", suggestion)
    change = float(diff[repaint].mean())
    if change > MIN_CHANGE_INSIDE:
        return _Finding("changed_inside_mask", True, f"蒙版内平均变化 {change:.1f}，已重绘", "")
    detail = f"蒙版内平均变化 {change:.1f}，不高于 {MIN_CHANGE_INSIDE:g}，几乎没变"
    return _Finding("changed_inside_mask", False, detail, suggestion)


def _unchanged_outside(diff: npt.NDArray[np.int16], repaint: npt.NDArray[np.bool_]) -> _Finding:
    outside = diff[~repaint]
    largest = int(outside.max()) if outside.size else 0
    if largest == 0:
        return _Finding("unchanged_outside_mask", True, "蒙版外像素完全未变", "")
    changed = int(outside.reshape(-1, 3).any(axis=1).sum())
    return _Finding(
        "unchanged_outside_mask",
        False,
        f"蒙版外有 {changed} 个像素被改动（最大差值 {largest}）",
        "重新生成：蒙版以外的区域被改动了，局部重绘只能修改蒙版内",
    )
