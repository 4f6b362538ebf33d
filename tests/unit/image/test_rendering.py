"""The local renderer: deterministic PNGs, honoured sizes, exact inpainting, adjustments from the previous image."""

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from imaging import rendering
from imaging.image_provider import ImageRequest, LocalImageProvider
from imaging.rendering import (
    ImageDecodeError,
    ImageTooLargeError,
    decode_image,
    encode_png,
    palette_for,
    render_adjustment,
    render_inpainting,
    render_text_to_image,
    style_family,
)

PROMPT = "一只赛博朋克风格的猫，霓虹灯下的城市"


def pixels(image: Image.Image) -> npt.NDArray[np.int16]:
    return np.asarray(image.convert("RGB"), dtype=np.int16)


def render(
    prompt: str = PROMPT, *, seed: int = 7, width: int = 320, height: int = 240, strength: float = 0.7
) -> Image.Image:
    return render_text_to_image(prompt, seed=seed, width=width, height=height, style_strength=strength)


@pytest.fixture(scope="module")
def base() -> Image.Image:
    return render()


@pytest.fixture(scope="module")
def box_mask() -> Image.Image:
    mask = Image.new("L", (320, 240), 0)
    mask.paste(255, (100, 60, 220, 180))
    return mask


def test_the_same_arguments_give_byte_identical_pngs() -> None:
    assert encode_png(render()) == encode_png(render())


@pytest.mark.parametrize("prompt", [PROMPT, "一朵花，水彩", "咖啡封面 cover"])
def test_every_stage_works_in_float32(prompt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stray float64 scalar (a seeded draw) once turned every stage after the hills into float64: twice the
    memory traffic, a third more CPU per render, on a worker rendering 50 posts' images."""
    seen: list[np.dtype[Any]] = []
    screen = rendering._screen

    def watched(pixels: npt.NDArray[Any], light: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out = screen(pixels, light)
        seen.extend([pixels.dtype, light.dtype, out.dtype])
        return out

    monkeypatch.setattr(rendering, "_screen", watched)
    render(prompt, width=160, height=120)

    assert seen and set(seen) == {np.dtype(np.float32)}


def test_a_different_seed_gives_a_visibly_different_image(base: Image.Image) -> None:
    assert np.abs(pixels(render(seed=8)) - pixels(base)).mean() > 10


@pytest.mark.parametrize(("width", "height"), [(800, 600), (512, 512), (1, 1), (37, 1001)])
def test_the_requested_size_is_honoured(width: int, height: int) -> None:
    image = render(width=width, height=height)
    assert image.mode == "RGB" and image.size == (width, height)


def test_a_picture_is_not_flat(base: Image.Image) -> None:
    assert pixels(base).std() > 20


@pytest.mark.parametrize("size", [(0, 10), (10, 0), (5000, 10)])
def test_an_impossible_size_is_rejected(size: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="image size"):
        render(width=size[0], height=size[1])


@pytest.mark.parametrize(
    ("prompt", "family"),
    [
        ("cyberpunk city", "cyberpunk"),
        ("霓虹灯下的街道", "cyberpunk"),
        ("水彩风景", "watercolor"),
        ("水墨山水", "ink"),
        ("an oil painting of a harbour", "oil"),
        ("a pink thinking robot", None),
    ],
)
def test_style_words_pick_a_palette_family(prompt: str, family: str | None) -> None:
    assert style_family(prompt) == family


def test_prompts_without_style_words_get_a_stable_palette_of_their_own() -> None:
    assert palette_for("a quiet lake") == palette_for("a quiet lake")
    assert palette_for("a quiet lake") != palette_for("a busy market")


def test_style_strength_raises_saturation() -> None:
    def saturation(image: Image.Image) -> float:
        return float(np.asarray(image.convert("HSV"))[..., 1].mean())

    assert saturation(render(strength=1.0)) > saturation(render(strength=0.5)) > saturation(render(strength=0.0))


def test_inpainting_keeps_every_pixel_outside_the_mask_and_repaints_inside(
    base: Image.Image, box_mask: Image.Image
) -> None:
    result = render_inpainting(base, box_mask, "a red rose", seed=3, style_strength=0.7)
    inside = np.asarray(box_mask) == 255
    diff = np.abs(pixels(result) - pixels(base))
    assert result.size == base.size
    assert diff[~inside].max() == 0
    assert diff[inside].mean() > 20


def test_inpainting_resizes_and_binarises_the_mask(base: Image.Image) -> None:
    small = Image.new("L", (32, 24), 0)
    small.paste(200, (10, 6, 22, 18))
    small.paste(100, (0, 0, 5, 5))
    result = render_inpainting(base, small, "a red rose", seed=3, style_strength=0.7)
    diff = np.abs(pixels(result) - pixels(base)).max(axis=2)
    assert diff[:, :100].max() == 0 and diff[:60].max() == 0
    assert diff[60:180, 100:220].mean() > 20


def test_inpainting_with_an_empty_mask_returns_the_base(base: Image.Image) -> None:
    result = render_inpainting(base, Image.new("L", base.size, 0), "a rose", seed=3, style_strength=0.7)
    assert encode_png(result) == encode_png(base)


def test_inpainting_is_deterministic(base: Image.Image, box_mask: Image.Image) -> None:
    first = render_inpainting(base, box_mask, "a red rose", seed=3, style_strength=0.7)
    second = render_inpainting(base, box_mask, "a red rose", seed=3, style_strength=0.7)
    assert encode_png(first) == encode_png(second)


def test_adjustment_starts_from_the_previous_image(base: Image.Image) -> None:
    adjusted = render_adjustment(base, PROMPT, seed=9, width=640, height=480, style_strength=0.3)
    unrelated = render(seed=9, width=640, height=480, strength=0.3)
    previous = pixels(base.resize((640, 480), Image.Resampling.LANCZOS)).ravel()

    def correlation(image: Image.Image) -> float:
        return float(np.corrcoef(previous, pixels(image).ravel())[0, 1])

    assert adjusted.size == (640, 480)
    assert correlation(adjusted) > 0.9 > correlation(unrelated)


def test_adjustment_applies_the_new_strength(base: Image.Image) -> None:
    muted = render_adjustment(base, PROMPT, seed=9, width=320, height=240, style_strength=0.0)
    vivid = render_adjustment(base, PROMPT, seed=9, width=320, height=240, style_strength=1.0)
    assert pixels(vivid).std() > pixels(muted).std()


def test_png_round_trip(base: Image.Image) -> None:
    data = encode_png(base)
    assert data.startswith(b"\x89PNG")
    assert np.array_equal(pixels(decode_image(data)), pixels(base))


@pytest.mark.parametrize("data", [b"", b"not an image", b"\x89PNG\r\n\x1a\n truncated"])
def test_undecodable_bytes_raise_a_value_error(data: bytes) -> None:
    with pytest.raises(ImageDecodeError, match="cannot decode image"):
        decode_image(data)
    assert issubclass(ImageDecodeError, ValueError)


def test_an_image_over_4096_pixels_a_side_is_refused_before_decoding() -> None:
    with pytest.raises(ImageTooLargeError, match="4097x3"):
        decode_image(encode_png(Image.new("L", (4097, 3))))
    assert issubclass(ImageTooLargeError, ImageDecodeError)


async def test_the_local_provider_dispatches_on_the_task_type(base: Image.Image, box_mask: Image.Image) -> None:
    provider = LocalImageProvider()
    common = {"prompt": PROMPT, "seed": 7, "width": 320, "height": 240, "style_strength": 0.7}
    text = await provider.generate(ImageRequest(task_type="text_to_image", **common))
    assert text == encode_png(base)
    edit = ImageRequest(task_type="inpainting", base_image=text, mask=encode_png(box_mask), **common)
    assert decode_image(await provider.generate(edit)).size == (320, 240)
    adjust = ImageRequest(task_type="parameter_adjustment", base_image=text, **{**common, "width": 160})
    assert decode_image(await provider.generate(adjust)).size == (160, 240)


@pytest.mark.parametrize(
    ("task_type", "needs"), [("inpainting", "base_image .* and mask"), ("parameter_adjustment", "base_image")]
)
async def test_the_local_provider_explains_a_missing_input(task_type: str, needs: str) -> None:
    request = ImageRequest.model_validate(
        {"task_type": task_type, "prompt": "x", "seed": 1, "width": 8, "height": 8, "style_strength": 0.5}
    )
    with pytest.raises(ValueError, match=needs):
        await LocalImageProvider().generate(request)
