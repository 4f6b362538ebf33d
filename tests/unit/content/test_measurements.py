"""Image measurements from real pixels: palette, tone, temperature, composition, symmetry, palette distances and
the nearest renderer style, on synthetic Pillow images and on images the local renderer draws."""

import io

import pytest
from PIL import Image, ImageDraw

from imaging.measurements import (
    STYLE_WORDS,
    describe,
    measure_image,
    nearest_style,
    palette_distance,
)
from imaging.rendering import STYLE_KEYWORDS, encode_png, render_text_to_image, style_palette


def encoded(image: Image.Image, fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    if fmt == "JPEG":
        image.save(buffer, format=fmt, quality=95)
    else:
        image.save(buffer, format=fmt)
    return buffer.getvalue()


def solid(colour: tuple[int, int, int], size: tuple[int, int] = (120, 80)) -> bytes:
    return encoded(Image.new("RGB", size, colour))


def rendered(prompt: str, seed: int = 1) -> bytes:
    return encode_png(render_text_to_image(prompt, seed=seed, width=256, height=256, style_strength=0.8))


def test_a_solid_colour_has_one_palette_colour_and_no_contrast() -> None:
    m = measure_image(solid((200, 40, 30)))
    assert (m.width, m.height, m.aspect_ratio) == (120, 80, 1.5)
    assert m.palette == ["#c8281e"] and m.palette_shares == [1.0]
    assert m.contrast == 0.0
    assert m.brightness == pytest.approx((0.299 * 200 + 0.587 * 40 + 0.114 * 30) / 255, abs=0.002)
    assert m.saturation == pytest.approx(170 / 200, abs=0.002)
    assert m.symmetry == 1.0
    assert m.composition == "balanced" and m.focus_point == (0.5, 0.5)


def test_black_and_white_halves_give_two_equal_colours_and_full_contrast() -> None:
    image = Image.new("RGB", (300, 200), "black")
    image.paste((255, 255, 255), (150, 0, 300, 200))
    m = measure_image(encoded(image))
    assert sorted(m.palette) == ["#000000", "#ffffff"]
    assert m.palette_shares == [0.5, 0.5]
    assert sum(m.palette_shares) == pytest.approx(1.0)
    assert m.brightness == pytest.approx(0.5, abs=0.01)
    assert m.contrast == pytest.approx(0.5, abs=0.01)
    assert m.saturation == 0.0 and m.colour_temperature == "neutral"
    assert m.symmetry == pytest.approx(0.0, abs=0.01)  # the mirror swaps black and white


def test_palette_is_ordered_by_share() -> None:
    image = Image.new("RGB", (200, 100), (20, 60, 200))
    image.paste((250, 220, 40), (0, 0, 50, 100))  # a quarter yellow, three quarters blue
    m = measure_image(encoded(image))
    assert m.palette == ["#143cc8", "#fadc28"]
    assert m.palette_shares == pytest.approx([0.75, 0.25], abs=0.01)


def test_many_colours_are_reduced_to_at_most_six() -> None:
    image = Image.new("RGB", (240, 40))
    draw = ImageDraw.Draw(image)
    for index in range(12):
        draw.rectangle((index * 20, 0, index * 20 + 19, 39), fill=(index * 20, 255 - index * 20, (index * 53) % 256))
    m = measure_image(encoded(image))
    assert 2 <= len(m.palette) <= 6 and len(m.palette_shares) == len(m.palette)
    assert m.palette_shares == sorted(m.palette_shares, reverse=True)
    assert sum(m.palette_shares) == pytest.approx(1.0, abs=0.001)
    assert all(len(colour) == 7 and colour == colour.lower() for colour in m.palette)


def test_a_bright_blob_on_the_left_third_moves_the_focus_there() -> None:
    image = Image.new("RGB", (300, 200), "black")
    ImageDraw.Draw(image).ellipse((70, 70, 130, 130), fill="white")  # centred at x = 100 = a third of 300
    m = measure_image(encoded(image))
    assert m.focus_point == pytest.approx((1 / 3, 0.5), abs=0.02)
    assert m.composition == "rule_of_thirds"
    assert m.symmetry < 0.95


def test_a_blob_near_the_left_edge_is_left_weighted_and_one_near_the_top_is_top_weighted() -> None:
    left = Image.new("RGB", (300, 200), "black")
    ImageDraw.Draw(left).ellipse((20, 80, 60, 120), fill="white")
    top = Image.new("RGB", (200, 300), "black")
    ImageDraw.Draw(top).ellipse((80, 15, 120, 55), fill="white")
    m_left, m_top = measure_image(encoded(left)), measure_image(encoded(top))
    assert m_left.composition == "left_weighted" and m_left.focus_point[0] < 0.2
    assert m_top.composition == "top_weighted" and m_top.focus_point[1] < 0.2


def test_a_small_central_subject_is_centered() -> None:
    image = Image.new("RGB", (200, 200), (30, 30, 30))
    ImageDraw.Draw(image).ellipse((80, 80, 120, 120), fill=(240, 200, 60))
    m = measure_image(encoded(image))
    assert m.composition == "centered" and m.focus_point == pytest.approx((0.5, 0.5), abs=0.02)


def test_a_mirror_symmetric_pattern_scores_near_one() -> None:
    image = Image.new("RGB", (200, 200), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((20, 40, 60, 160), fill="black")
    draw.rectangle((140, 40, 180, 160), fill="black")
    draw.ellipse((80, 80, 120, 120), fill=(128, 0, 0))
    symmetric = measure_image(encoded(image))
    draw.rectangle((140, 40, 180, 160), fill="white")  # remove the right bar: no longer symmetric
    lopsided = measure_image(encoded(image))
    assert symmetric.symmetry > 0.98
    assert lopsided.symmetry < symmetric.symmetry - 0.1


def test_warm_and_cool_images() -> None:
    warm = measure_image(solid((230, 140, 60)))
    cool = measure_image(solid((60, 140, 230)))
    grey = measure_image(solid((128, 128, 130)))
    assert (warm.colour_temperature, cool.colour_temperature, grey.colour_temperature) == ("warm", "cool", "neutral")


def test_brightness_orders_dark_and_light_images() -> None:
    dark, light = measure_image(solid((30, 30, 40))), measure_image(solid((230, 230, 220)))
    assert dark.brightness < 0.15 < 0.85 < light.brightness


def test_a_jpeg_is_measured_like_the_png() -> None:
    image = Image.new("RGB", (640, 480), (40, 90, 200))
    image.paste((250, 250, 250), (0, 0, 320, 480))
    png, jpeg = measure_image(encoded(image)), measure_image(encoded(image, "JPEG"))
    assert (jpeg.width, jpeg.height) == (640, 480)
    assert jpeg.brightness == pytest.approx(png.brightness, abs=0.02)
    assert palette_distance(jpeg.palette[:2], png.palette[:2]) < 0.03


def test_a_large_image_is_analysed_on_a_small_copy_but_reports_its_own_size() -> None:
    m = measure_image(encoded(Image.new("RGB", (3000, 1000), (10, 200, 10))))
    assert (m.width, m.height, m.aspect_ratio) == (3000, 1000, 3.0)
    assert m.palette == ["#0ac80a"]


def test_transparency_is_composited_on_white() -> None:
    image = Image.new("RGBA", (100, 100), (0, 0, 0, 0))
    m = measure_image(encoded(image))
    assert m.palette == ["#ffffff"] and m.brightness == 1.0


def test_garbage_bytes_are_refused() -> None:
    with pytest.raises(ValueError, match="cannot decode"):
        measure_image(b"definitely not an image")
    with pytest.raises(ValueError, match="cannot decode"):
        measure_image(solid((1, 2, 3))[:60])  # a truncated PNG


def test_more_than_40_megapixels_is_refused() -> None:
    for size in ((8000, 6000), (10000, 10000)):  # 48 and 100 MP (the latter past Pillow's own warning), small files
        with pytest.raises(ValueError, match="megapixels"):
            measure_image(encoded(Image.new("1", size)))


def test_describe_states_the_numbers_in_chinese() -> None:
    image = Image.new("RGB", (300, 200), (10, 20, 60))
    ImageDraw.Draw(image).ellipse((20, 80, 60, 120), fill=(80, 160, 255))
    m = measure_image(encoded(image))
    sentence = describe(m)
    assert m.palette[0] in sentence
    assert f"亮度 {m.brightness:.2f}" in sentence and "偏暗" in sentence
    assert f"对比度 {m.contrast:.2f}" in sentence and f"饱和度 {m.saturation:.2f}" in sentence
    assert "冷色调" in sentence and "左侧" in sentence
    assert f"（{m.focus_point[0]:.2f}, {m.focus_point[1]:.2f}）" in sentence


def test_palette_distance() -> None:
    palette = ["#102030", "#a0b0c0", "#ff0000"]
    assert palette_distance(palette, list(palette)) == 0.0
    assert palette_distance(["#000000"], ["#ffffff"]) == pytest.approx(1.0)
    near, far = ["#112233", "#a1b1c1", "#fe0101"], ["#ffffff", "#00ff00"]
    assert palette_distance(palette, near) < 0.02 < palette_distance(palette, far)
    assert palette_distance(palette, far) == palette_distance(far, palette)
    assert palette_distance([], palette) == 1.0 and palette_distance(palette, []) == 1.0
    with pytest.raises(ValueError):
        palette_distance(["red"], palette)


def test_style_palettes_and_words_cover_every_renderer_family() -> None:
    assert set(STYLE_WORDS) == set(STYLE_KEYWORDS)
    for family, word in STYLE_WORDS.items():
        assert word in STYLE_KEYWORDS[family]
        colours = style_palette(family)
        assert len(colours) >= 6 and all(colour.startswith("#") and len(colour) == 7 for colour in colours)
        assert nearest_style(colours) == (family, 0.0)
    assert style_palette("cyberpunk")[0] == "#0b0221"
    with pytest.raises(ValueError, match="unknown style"):
        style_palette("baroque")


@pytest.mark.parametrize(
    ("prompt", "family"),
    [("赛博朋克 城市", "cyberpunk"), ("水彩 花园", "watercolor"), ("水墨 山水", "ink"), ("油画 秋天", "oil")],
)
def test_a_rendered_image_is_nearest_to_its_own_style(prompt: str, family: str) -> None:
    for seed in (1, 2):
        m = measure_image(rendered(prompt, seed))
        assert nearest_style(m.palette)[0] == family


def test_measuring_is_deterministic() -> None:
    data = rendered("赛博朋克 城市")
    assert measure_image(data) == measure_image(data)
