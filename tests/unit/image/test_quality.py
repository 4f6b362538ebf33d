"""The Critic's checks on real images: good renders pass, wrong sizes fail, blank or leaky edits are regenerated."""

import math
from typing import Any

import numpy as np
import pytest
from PIL import Image

from imaging.masks import mask_from_paths
from imaging.quality import (
    GENERAL_WEIGHTS,
    INPAINTING_WEIGHTS,
    PASS_THRESHOLD,
    REGENERATE_BELOW,
    Assessment,
    assess_image,
)
from imaging.rendering import decode_image, encode_png, render_inpainting, render_text_to_image
from models.paths import PackedPath

PROMPT = "一只赛博朋克风格的猫，霓虹灯下的城市"
EDIT = "a red rose, 一朵红色的花"


@pytest.fixture(scope="module")
def good() -> bytes:
    return encode_png(render_text_to_image(PROMPT, seed=5, width=800, height=600, style_strength=0.7))


@pytest.fixture(scope="module")
def mask() -> Image.Image:
    square = PackedPath.of([(300, 200), (520, 200), (520, 420), (300, 420)])
    return mask_from_paths([square], (800, 600))


@pytest.fixture(scope="module")
def inpainted(good: bytes, mask: Image.Image) -> bytes:
    return encode_png(render_inpainting(decode_image(good), mask, EDIT, seed=6, style_strength=0.7))


def assess(image: bytes, **overrides: Any) -> Assessment:
    arguments: dict[str, Any] = {
        "expected_width": 800,
        "expected_height": 600,
        "prompt": PROMPT,
        "subject": "猫",
        "style": "赛博朋克",
        "task_type": "text_to_image",
    } | overrides
    return assess_image(image, **arguments)


def assess_edit(image: bytes, base: bytes, mask: Image.Image) -> Assessment:
    return assess(
        image, prompt=EDIT, subject="花", style=None, task_type="inpainting", base_image=base, mask=encode_png(mask)
    )


def failed(assessment: Assessment) -> set[str]:
    return {check.name for check in assessment.checks if not check.passed}


def test_thresholds_follow_the_seeds() -> None:
    assert (PASS_THRESHOLD, REGENERATE_BELOW) == (0.7, 0.6)


@pytest.mark.parametrize("weights", [GENERAL_WEIGHTS, INPAINTING_WEIGHTS])
def test_weights_sum_to_one(weights: dict[str, float]) -> None:
    assert math.fsum(weights.values()) == pytest.approx(1.0)


def test_a_correct_render_passes_with_every_check_explained(good: bytes) -> None:
    result = assess(good)
    assert result.score >= 0.8 and result.score >= PASS_THRESHOLD
    assert [c.name for c in result.checks] == ["decodes", "size", "not_blank", "subject", "style"]
    assert all(c.passed and c.detail for c in result.checks)
    assert result.suggestions == []
    assert math.fsum(c.weight for c in result.checks) == pytest.approx(1.0)


def test_the_score_has_two_decimals(good: bytes) -> None:
    score = assess(good, subject="狗").score
    assert score == round(score, 2)


def test_a_wrong_size_fails(good: bytes) -> None:
    result = assess(good, expected_width=1024, expected_height=768)
    assert result.score < PASS_THRESHOLD and failed(result) == {"size"}
    assert any(s.startswith("重新生成：图片尺寸与请求不符") for s in result.suggestions)


def test_a_blank_image_is_regenerated() -> None:
    blank = encode_png(Image.new("RGB", (800, 600), (128, 128, 128)))
    result = assess(blank)
    assert result.score < REGENERATE_BELOW and failed(result) == {"not_blank"}
    assert result.suggestions and result.suggestions[0].startswith("重新生成")


def test_undecodable_bytes_score_zero() -> None:
    result = assess(b"not a png")
    assert result.score == 0.0 and [c.name for c in result.checks] == ["decodes"]
    assert result.suggestions == ["重新生成：图片文件无法解码"]


def test_a_prompt_missing_the_subject_or_style_is_explained(good: bytes) -> None:
    result = assess(good, prompt="a quiet lake at dawn")
    assert failed(result) == {"subject", "style"}
    assert PASS_THRESHOLD <= result.score < 1.0
    assert any("猫" in s for s in result.suggestions) and any("赛博朋克" in s for s in result.suggestions)


@pytest.mark.parametrize(
    ("subject", "style", "prompt"),
    [
        ("一只猫", "赛博朋克风格", PROMPT),
        ("black cat", "cyberpunk", "a cat with black fur, neon city"),
        ("猫", "cyberpunk", PROMPT),
        (None, None, "anything"),
    ],
)
def test_the_prompt_covers_subject_and_style_in_other_words(
    good: bytes, subject: str | None, style: str | None, prompt: str
) -> None:
    result = assess(good, subject=subject, style=style, prompt=prompt)
    assert failed(result) == set()


def test_no_requested_style_passes_and_says_so(good: bytes) -> None:
    style = next(c for c in assess(good, style=None).checks if c.name == "style")
    assert style.passed and "未指定风格" in style.detail


def test_a_correct_inpainting_passes(good: bytes, inpainted: bytes, mask: Image.Image) -> None:
    result = assess_edit(inpainted, good, mask)
    assert result.score >= 0.8 and failed(result) == set()
    assert {"changed_inside_mask", "unchanged_outside_mask"} <= {c.name for c in result.checks}


def test_changing_a_pixel_outside_the_mask_is_regenerated(good: bytes, inpainted: bytes, mask: Image.Image) -> None:
    pixels = np.asarray(decode_image(inpainted)).copy()
    pixels[10, 10] ^= 1
    result = assess_edit(encode_png(Image.fromarray(pixels)), good, mask)
    assert result.score < REGENERATE_BELOW and failed(result) == {"unchanged_outside_mask"}
    check = next(c for c in result.checks if c.name == "unchanged_outside_mask")
    assert "1 个像素" in check.detail


def test_an_edit_that_changed_nothing_is_regenerated(good: bytes, mask: Image.Image) -> None:
    result = assess_edit(good, good, mask)
    assert result.score < REGENERATE_BELOW and failed(result) == {"changed_inside_mask"}


def test_an_edit_of_another_size_cannot_pass(good: bytes, inpainted: bytes, mask: Image.Image) -> None:
    smaller = encode_png(decode_image(inpainted).resize((400, 300)))
    result = assess_edit(smaller, good, mask)
    assert result.score < REGENERATE_BELOW
    assert {"size", "changed_inside_mask", "unchanged_outside_mask"} <= failed(result)


def test_without_base_and_mask_only_the_general_checks_run(inpainted: bytes) -> None:
    result = assess(inpainted, task_type="inpainting", prompt=EDIT, subject="花", style=None)
    assert [c.name for c in result.checks] == ["decodes", "size", "not_blank", "subject", "style"]
