"""Real measurements of an image from its pixels: size, dominant palette, brightness, contrast, saturation,
colour temperature, where the visual weight sits (edge energy), left-right symmetry; a Chinese sentence that
states them; and palette comparisons, between two palettes and against the renderer's style families.

The content supervisor's reference analysis, image planning and review use it. Every function is synchronous
CPU work on bytes or small lists (async callers run it in a thread); the analysis works on a copy scaled down to
at most `ANALYSIS_SIDE` pixels on the long side, so its cost does not grow with the image.
"""

import io
import math
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt
from PIL import Image, UnidentifiedImageError

from imaging.rendering import STYLE_KEYWORDS, style_palette

MAX_PIXELS = 40_000_000
"""Largest image accepted, in pixels (width x height), judged from the header before decoding."""
ANALYSIS_SIDE = 256
"""The analysis copy's longest side, in pixels."""
PALETTE_SIZE = 6
"""At most this many dominant colours are reported."""
MIN_PALETTE_SHARE = 0.01
"""A quantised colour covering less than this share of the pixels is left out of the palette."""
NEUTRAL_BAND = 0.04
"""Mean red minus mean blue (0..1) within this band counts as a neutral colour temperature."""
CENTRE_BAND = 0.08
"""A focus point within this distance of the centre (on both axes) is centred or balanced."""
THIRDS_BAND = 0.06
"""A focus point within this distance of a thirds line is on the rule of thirds."""
SPREAD_BALANCED = 0.28
"""Root-mean-square distance of the edge energy from the centre above which a centred focus is `balanced`."""

STYLE_WORDS: dict[str, str] = {"cyberpunk": "赛博朋克", "watercolor": "水彩", "ink": "水墨", "oil": "油画"}
"""The Chinese word (one of `STYLE_KEYWORDS`) that makes the renderer pick each style family."""

Temperature: TypeAlias = Literal["warm", "cool", "neutral"]
Composition: TypeAlias = Literal[
    "centered", "rule_of_thirds", "left_weighted", "right_weighted", "top_weighted", "bottom_weighted", "balanced"
]
_Floats: TypeAlias = npt.NDArray[np.floating[Any]]

_LUMA = np.array([0.299, 0.587, 0.114], dtype=np.float64)
_MAX_DISTANCE = math.sqrt(3.0)
_BRIGHTNESS_WORDS = ((0.35, "整体偏暗"), (0.65, "明暗适中"), (1.01, "整体偏亮"))
_TEMPERATURE_WORDS: dict[str, str] = {"warm": "暖色调", "cool": "冷色调", "neutral": "中性色调"}
_COMPOSITION_WORDS: dict[str, str] = {
    "centered": "视觉重心居中",
    "rule_of_thirds": "视觉重心落在三分线附近",
    "left_weighted": "视觉重心在左侧",
    "right_weighted": "视觉重心在右侧",
    "top_weighted": "视觉重心在上方",
    "bottom_weighted": "视觉重心在下方",
    "balanced": "画面重心分布均衡",
}


@dataclass(frozen=True)
class Measurements:
    """What was measured of one image (the analysis copy, except width and height, which are the original's)."""

    width: int
    height: int
    aspect_ratio: float
    """Width / height, rounded to 3 decimals."""
    palette: list[str]
    """Up to `PALETTE_SIZE` dominant colours, `#rrggbb` lowercase, most frequent first."""
    palette_shares: list[float]
    """Each palette colour's share of the pixels (sums to ~1)."""
    brightness: float
    """Mean Rec.601 luminance, 0 (black) .. 1 (white)."""
    contrast: float
    """Standard deviation of the luminance, 0 .. 0.5."""
    saturation: float
    """Mean HSV saturation, 0..1."""
    colour_temperature: Temperature
    composition: Composition
    focus_point: tuple[float, float]
    """Centre of the edge energy as fractions of width and height, rounded to 3 decimals."""
    symmetry: float
    """1 - mean absolute difference between the grey image and its left-right mirror, 0..1."""


def measure_image(data: bytes) -> Measurements:
    """Measure an image given as PNG, JPEG or WebP bytes.

    Raises `ValueError` if the bytes cannot be decoded as an image or the image has more than `MAX_PIXELS` pixels.
    """
    image = _open(data)
    width, height = image.size
    rgb = _analysis_copy(image, data)
    pixels = np.asarray(rgb, dtype=np.float64) / 255.0
    luma = pixels @ _LUMA
    palette, shares = _palette(rgb)
    focus, spread = _edge_centre(luma)
    return Measurements(
        width=width,
        height=height,
        aspect_ratio=round(width / height, 3),
        palette=palette,
        palette_shares=shares,
        brightness=_round(float(luma.mean())),
        contrast=_round(float(luma.std())),
        saturation=_round(_mean_saturation(pixels)),
        colour_temperature=_temperature(pixels),
        composition=_composition(focus, spread),
        focus_point=(round(focus[0], 3), round(focus[1], 3)),
        symmetry=_round(1.0 - float(np.abs(luma - luma[:, ::-1]).mean())),
    )


def describe(m: Measurements) -> str:
    """The measurements as one Chinese sentence, numbers included (for the prompts of the agents after it)."""
    colours = "/".join(m.palette) if m.palette else "无"
    tone = next(word for limit, word in _BRIGHTNESS_WORDS if m.brightness < limit)
    x, y = m.focus_point
    return (
        f"{m.width}×{m.height}，主色 {colours}，{tone}（亮度 {m.brightness:.2f}）、对比度 {m.contrast:.2f}、"
        f"饱和度 {m.saturation:.2f}、{_TEMPERATURE_WORDS[m.colour_temperature]}，"
        f"{_COMPOSITION_WORDS[m.composition]}（{x:.2f}, {y:.2f}），左右对称度 {m.symmetry:.2f}"
    )


def palette_distance(a: list[str], b: list[str]) -> float:
    """How far apart two palettes are: 0 (the same colours) .. 1 (black against white); symmetric.

    For each colour of one palette, the Euclidean RGB distance (0..1 per channel, divided by sqrt 3) to the
    nearest colour of the other; the mean of that both ways, averaged. An empty palette is 1.0 from anything.
    Raises `ValueError` for a colour that is not `#rrggbb`.
    """
    if not a or not b:
        return 1.0
    left, right = _rgb_array(a), _rgb_array(b)
    distances = np.linalg.norm(left[:, None, :] - right[None, :, :], axis=2) / _MAX_DISTANCE
    return round(float((distances.min(axis=1).mean() + distances.min(axis=0).mean()) / 2), 4)


def nearest_style(palette: list[str]) -> tuple[str, float]:
    """The renderer's style family (see `STYLE_KEYWORDS`) whose palette is nearest to `palette`, and the distance.

    Ties go to the family listed first; an empty palette is 1.0 from every family.
    """
    distances = [(palette_distance(palette, style_palette(family)), family) for family in STYLE_KEYWORDS]
    distance, family = min(distances, key=lambda pair: pair[0])
    return family, distance


# --- helpers ----------------------------------------------------------------------------------------


def _open(data: bytes) -> Image.Image:
    try:
        image = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:  # the warning, when made an error
        raise ValueError(f"image refused: more than {MAX_PIXELS // 1_000_000} megapixels ({exc})") from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise ValueError(f"cannot decode image ({len(data)} bytes): not a PNG, JPEG or WebP image") from exc
    width, height = image.size
    if width < 1 or height < 1:
        raise ValueError(f"cannot decode image: empty size {width}x{height}")
    if width * height > MAX_PIXELS:
        raise ValueError(f"image refused: {width}x{height} is more than {MAX_PIXELS // 1_000_000} megapixels")
    return image


def _analysis_copy(image: Image.Image, data: bytes) -> Image.Image:
    """The image in RGB (transparency composited on white), at most `ANALYSIS_SIDE` pixels on the long side."""
    try:
        if image.format == "JPEG":
            image.draft("RGB", (ANALYSIS_SIDE, ANALYSIS_SIDE))  # decode at a reduced scale: far less work
        image.load()
        if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
            rgba = image.convert("RGBA")
            flat = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            image = Image.alpha_composite(flat, rgba)
        rgb = image.convert("RGB")
    except (OSError, SyntaxError, ValueError) as exc:
        raise ValueError(f"cannot decode image ({len(data)} bytes): {exc}") from exc
    if max(rgb.size) > ANALYSIS_SIDE:
        scale = ANALYSIS_SIDE / max(rgb.size)
        size = (max(1, round(rgb.width * scale)), max(1, round(rgb.height * scale)))
        rgb = rgb.resize(size, Image.Resampling.BOX)
    return rgb


def _palette(rgb: Image.Image) -> tuple[list[str], list[float]]:
    """Median-cut quantisation (deterministic): the most frequent colours and their shares of the pixels."""
    quantised = rgb.quantize(colors=PALETTE_SIZE, method=Image.Quantize.MEDIANCUT)
    flat_palette = quantised.getpalette() or []
    counts: dict[str, int] = {}
    for count, index in quantised.getcolors(maxcolors=256) or []:
        if not isinstance(index, int):  # a "P" image's colours are palette indices; never a tuple
            continue
        start = 3 * index
        red, green, blue = flat_palette[start : start + 3]
        colour = f"#{red:02x}{green:02x}{blue:02x}"
        counts[colour] = counts.get(colour, 0) + count
    total = sum(counts.values())
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    kept = [(colour, count) for colour, count in ranked if count / total >= MIN_PALETTE_SHARE] or ranked[:1]
    kept = kept[:PALETTE_SIZE]
    kept_total = sum(count for _, count in kept)
    return [colour for colour, _ in kept], [round(count / kept_total, 4) for _, count in kept]


def _mean_saturation(pixels: _Floats) -> float:
    high = pixels.max(axis=2)
    low = pixels.min(axis=2)
    saturation = np.divide(high - low, high, out=np.zeros_like(high), where=high > 0)
    return float(saturation.mean())


def _temperature(pixels: _Floats) -> Temperature:
    warmth = float(pixels[..., 0].mean() - pixels[..., 2].mean())
    if warmth > NEUTRAL_BAND:
        return "warm"
    if warmth < -NEUTRAL_BAND:
        return "cool"
    return "neutral"


def _edge_centre(luma: _Floats) -> tuple[tuple[float, float], float]:
    """The centroid of the edge energy (gradient magnitude above its median, which drops fine grain) as fractions
    of width and height, and the energy's root-mean-square distance from the image centre. No edges: the centre."""
    height, width = luma.shape
    if height < 2 or width < 2:
        return (0.5, 0.5), 0.0
    grad_y, grad_x = np.gradient(luma)
    magnitude = np.hypot(grad_x, grad_y)
    energy = np.clip(magnitude - np.median(magnitude), 0.0, None)
    total = float(energy.sum())
    if total < 1e-9:
        return (0.5, 0.5), 0.0
    ys = (np.arange(height, dtype=np.float64) + 0.5) / height
    xs = (np.arange(width, dtype=np.float64) + 0.5) / width
    fx = float((energy.sum(axis=0) * xs).sum() / total)
    fy = float((energy.sum(axis=1) * ys).sum() / total)
    y, x = np.meshgrid(ys, xs, indexing="ij")
    spread = math.sqrt(float((energy * ((x - 0.5) ** 2 + (y - 0.5) ** 2)).sum() / total))
    return (fx, fy), spread


def _composition(focus: tuple[float, float], spread: float) -> Composition:
    fx, fy = focus
    dx, dy = fx - 0.5, fy - 0.5
    if abs(dx) < CENTRE_BAND and abs(dy) < CENTRE_BAND:
        return "balanced" if spread == 0.0 or spread > SPREAD_BALANCED else "centered"
    if min(abs(fx - 1 / 3), abs(fx - 2 / 3), abs(fy - 1 / 3), abs(fy - 2 / 3)) < THIRDS_BAND:
        return "rule_of_thirds"
    if abs(dx) >= abs(dy):
        return "left_weighted" if dx < 0 else "right_weighted"
    return "top_weighted" if dy < 0 else "bottom_weighted"


def _rgb_array(colours: list[str]) -> _Floats:
    try:
        values = [[int(colour[i : i + 2], 16) for i in (1, 3, 5)] for colour in colours]
    except ValueError as exc:
        raise ValueError(f"palette colours must be #rrggbb, got {colours!r}") from exc
    if any(len(colour) != 7 or not colour.startswith("#") for colour in colours):
        raise ValueError(f"palette colours must be #rrggbb, got {colours!r}")
    return np.array(values, dtype=np.float64) / 255.0


def _round(value: float) -> float:
    return round(min(1.0, max(0.0, value)), 3)
