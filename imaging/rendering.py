"""The local procedural renderer: real, deterministic images made with Pillow and numpy.

It stands in for a text-to-image model so the whole agent runs offline. A picture is composed from a
background gradient, a landscape band, soft bokeh and a central subject motif, in a palette picked from
the style words of the prompt. A composition word in the prompt (`COMPOSITIONS`: 封面构图, 特写构图, 步骤构图,
清单构图) changes the layout: a cover with a title band, a close-up of the subject, three steps in a row, or a
checklist; a subject word picks the motif (a cat, a flower, a cup, a data chart, else a ringed planet).
`style_strength` (0..1) sets saturation and contrast, 0.5 being neutral.
Every random choice comes from a generator seeded with a SHA-256 of the prompt and the seed, so the same
arguments always give byte-identical PNGs and a different seed gives a visibly different picture.
"""

import colorsys
import hashlib
import io
import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFilter, UnidentifiedImageError

Pixels: TypeAlias = npt.NDArray[np.floating[Any]]
"""A float32 image as three colour planes, (3, height, width) with values in 0..1, or a (height, width) weight map.
Planes, not (height, width, 3): a colour or a weight map then broadcasts over whole rows, and each pass over the
picture takes a fifth of the time it takes when numpy's innermost loop runs over three channels."""
RGB: TypeAlias = tuple[float, float, float]

MAX_SIDE = 4096
"""Largest width or height accepted (seed 000 §8.1 recommends images up to 4096x4096)."""

STYLE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "cyberpunk": ("cyberpunk", "neon", "synthwave", "赛博朋克", "赛博", "霓虹"),
    "watercolor": ("watercolor", "watercolour", "pastel", "水彩"),
    "ink": ("ink", "sumi-e", "水墨", "国画"),
    "oil": ("oil", "oil painting", "油画"),
}
"""Style families the renderer knows, each with the words (English or Chinese) that select it."""

COMPOSITIONS: dict[str, tuple[str, ...]] = {
    "cover": ("封面构图", "cover composition"),
    "closeup": ("特写构图", "close-up composition"),
    "steps": ("步骤构图", "step-by-step composition"),
    "checklist": ("清单构图", "checklist composition"),
}
"""Layouts the renderer knows, each with the words (Chinese or English) that select it."""

PNG_COMPRESS_LEVEL = 1
"""zlib level 1: several times faster than the default 6, for slightly larger files (measured: README, Performance)."""
_SUPERSAMPLE = 2
_LUMA = (0.299, 0.587, 0.114)
"""Rec. 601 luma weights of red, green and blue."""


class ImageDecodeError(ValueError):
    """Raised when bytes cannot be decoded as an image."""


class ImageTooLargeError(ImageDecodeError):
    """Raised, before decoding, for an image with more than `MAX_SIDE` pixels a side."""


@dataclass(frozen=True)
class Palette:
    """The colours of one picture: sky gradient, accents for bokeh, subject fill and its glow."""

    sky_top: RGB
    sky_bottom: RGB
    accents: tuple[RGB, ...]
    subject: RGB
    glow: RGB


def _hex(value: str) -> RGB:
    return (int(value[1:3], 16) / 255, int(value[3:5], 16) / 255, int(value[5:7], 16) / 255)


_STYLE_PALETTES: dict[str, Palette] = {
    "cyberpunk": Palette(
        sky_top=_hex("#0b0221"),
        sky_bottom=_hex("#5b1a78"),
        accents=(_hex("#ff2bd6"), _hex("#00f0ff"), _hex("#7b5cff"), _hex("#ff6ec7")),
        subject=_hex("#14052e"),
        glow=_hex("#00f0ff"),
    ),
    "watercolor": Palette(
        sky_top=_hex("#f7d9e3"),
        sky_bottom=_hex("#dff3ee"),
        accents=(_hex("#f9b4c7"), _hex("#a8d8ea"), _hex("#fce38a"), _hex("#c3aed6")),
        subject=_hex("#8aa9c9"),
        glow=_hex("#fff6e0"),
    ),
    "ink": Palette(
        sky_top=_hex("#e9e6df"),
        sky_bottom=_hex("#bdbab3"),
        accents=(_hex("#8c8a86"), _hex("#5f5d5a"), _hex("#d6d3cc")),
        subject=_hex("#1d1c1a"),
        glow=_hex("#f4f2ec"),
    ),
    "oil": Palette(
        sky_top=_hex("#3b2412"),
        sky_bottom=_hex("#d9a441"),
        accents=(_hex("#c8702a"), _hex("#e8c070"), _hex("#8c3b1e"), _hex("#f0d9a0")),
        subject=_hex("#4a2a12"),
        glow=_hex("#ffd98a"),
    ),
}


# --- public API -------------------------------------------------------------------------------------


def render_text_to_image(prompt: str, *, seed: int, width: int, height: int, style_strength: float) -> Image.Image:
    """Compose a new RGB picture for `prompt` of exactly `width` x `height` pixels."""
    _check_size(width, height)
    rng = _rng(prompt, seed)
    palette = palette_for(prompt)
    family = style_family(prompt)
    composition = composition_for(prompt)
    pixels = _gradient(width, height, palette, rng)
    if composition not in ("closeup", "checklist"):
        pixels = _landscape(pixels, palette, family, rng)
    pixels = _bokeh(pixels, palette, rng)
    if composition is None:
        pixels = _subject(pixels, palette, prompt, rng)
    else:
        pixels = _composed(pixels, palette, prompt, composition)
    pixels = _vignette(pixels)
    pixels = _apply_style(pixels, style_strength)
    return _to_image(_grain(pixels, rng))


def render_inpainting(
    base: Image.Image, mask: Image.Image, prompt: str, *, seed: int, style_strength: float
) -> Image.Image:
    """Repaint the masked region of `base` (mask 255 = repaint) and keep every other pixel identical.

    New content for `prompt` is composed to fit the mask's bounding box and feathered only inwards, so
    the pixels outside the mask are copied from `base` unchanged.
    """
    base_rgb = base.convert("RGB")
    repaint = binary_mask(mask, base_rgb.size)
    original = np.asarray(base_rgb)
    if not repaint.any():
        return base_rgb.copy()
    rows = np.flatnonzero(repaint.any(axis=1))
    cols = np.flatnonzero(repaint.any(axis=0))
    top, bottom, left, right = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    patch = render_text_to_image(
        prompt, seed=seed, width=int(right - left), height=int(bottom - top), style_strength=style_strength
    )
    before = _planes(base_rgb)
    fresh = before.copy()
    fresh[:, top:bottom, left:right] = _planes(patch)
    alpha = _inner_feather(repaint)
    blended = _to_uint8(_cover(before, fresh, alpha))
    return Image.fromarray(np.where(repaint[..., None], blended, original))


def render_adjustment(
    previous: Image.Image, prompt: str, *, seed: int, width: int, height: int, style_strength: float
) -> Image.Image:
    """Start from `previous`: resize it (LANCZOS) and re-apply the prompt's style at the new strength."""
    _check_size(width, height)
    resized = previous.convert("RGB").resize((width, height), Image.Resampling.LANCZOS)
    pixels = _planes(resized)
    pixels = _tint(pixels, palette_for(prompt), amount=0.15 + 0.2 * _clamp01(style_strength))
    pixels = _apply_style(pixels, style_strength)
    return _to_image(_grain(pixels, _rng(prompt, seed)))


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes with no metadata, so the same image always encodes to the same bytes."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buffer.getvalue()


def decode_image(data: bytes) -> Image.Image:
    """Decode image bytes fully (not lazily).

    Raises `ImageTooLargeError` for more than `MAX_SIDE` pixels a side (read from the header, so a small
    file that expands to a huge bitmap is never decoded) and `ImageDecodeError` if the bytes are not an image.
    """
    with _as_decode_error(data):
        image = Image.open(io.BytesIO(data))
    if max(image.size) > MAX_SIDE:
        raise ImageTooLargeError(f"image is {image.width}x{image.height}, more than {MAX_SIDE} pixels a side")
    with _as_decode_error(data):
        image.load()
    return image


def style_family(text: str) -> str | None:
    """The first style family (see `STYLE_KEYWORDS`) whose words occur in `text`, or None."""
    lowered = text.casefold()
    for family, words in STYLE_KEYWORDS.items():
        if any(_mentions_word(word, lowered) for word in words):
            return family
    return None


def composition_for(text: str) -> str | None:
    """The composition a text names (`COMPOSITIONS`), or None (the default: one central subject)."""
    lowered = text.casefold()
    for composition, words in COMPOSITIONS.items():
        if any(_mentions_word(word, lowered) for word in words):
            return composition
    return None


def palette_for(prompt: str) -> Palette:
    """The style family's palette, or one derived from a stable hash of the prompt."""
    family = style_family(prompt)
    if family is not None:
        return _STYLE_PALETTES[family]
    hue = int.from_bytes(hashlib.sha256(prompt.encode()).digest()[:4], "big") / 2**32

    def hsv(shift: float, saturation: float, value: float) -> RGB:
        return colorsys.hsv_to_rgb((hue + shift) % 1.0, saturation, value)

    return Palette(
        sky_top=hsv(0.0, 0.55, 0.3),
        sky_bottom=hsv(0.08, 0.4, 0.9),
        accents=(hsv(0.33, 0.6, 0.95), hsv(0.5, 0.5, 0.9), hsv(0.9, 0.55, 1.0)),
        subject=hsv(0.55, 0.6, 0.22),
        glow=hsv(0.12, 0.25, 1.0),
    )


def style_palette(family: str) -> list[str]:
    """A style family's palette colours as `#rrggbb`: sky_top, sky_bottom, the accents, subject and glow.

    Raises `ValueError` for a family the renderer does not know (see `STYLE_KEYWORDS`).
    """
    palette = _STYLE_PALETTES.get(family)
    if palette is None:
        raise ValueError(f"unknown style family {family!r}; known: {', '.join(_STYLE_PALETTES)}")
    colours = (palette.sky_top, palette.sky_bottom, *palette.accents, palette.subject, palette.glow)
    return ["#" + "".join(f"{round(channel * 255):02x}" for channel in colour) for colour in colours]


def binary_mask(mask: Image.Image, size: tuple[int, int]) -> npt.NDArray[np.bool_]:
    """The mask as a boolean (height, width) array, True = repaint: resized NEAREST and cut at 127."""
    gray = mask.convert("L")
    if gray.size != size:
        gray = gray.resize(size, Image.Resampling.NEAREST)
    return np.asarray(gray) > 127


# --- helpers ----------------------------------------------------------------------------------------


@contextmanager
def _as_decode_error(data: bytes) -> Iterator[None]:
    try:
        yield
    except Image.DecompressionBombError as exc:  # judged from the header: far more pixels than MAX_SIDE allows
        raise ImageTooLargeError(f"image has too many pixels ({exc})") from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise ImageDecodeError(f"cannot decode image ({len(data)} bytes): {exc}") from exc


def _mentions_word(word: str, lowered_text: str) -> bool:
    if word.isascii():
        return re.search(rf"\b{re.escape(word)}\b", lowered_text) is not None
    return word in lowered_text


def _check_size(width: int, height: int) -> None:
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise ValueError(f"image size must be between 1 and {MAX_SIDE} pixels a side, got {width}x{height}")


def _rng(prompt: str, seed: int) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}\x00{prompt}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def _clamp01(value: float) -> float:
    return min(1.0, max(0.0, value))


def _color(rgb: RGB) -> Pixels:
    """A colour as (3, 1, 1): it broadcasts over planes."""
    return np.array(rgb, dtype=np.float32)[:, None, None]


def _planes(image: Image.Image) -> Pixels:
    """An RGB image as planes in 0..1."""
    planes: Pixels = np.ascontiguousarray(np.asarray(image, dtype=np.float32).transpose(2, 0, 1))
    planes /= 255
    return planes


def _to_uint8(pixels: Pixels) -> npt.NDArray[np.uint8]:
    """Planes as an interleaved (height, width, 3) uint8 array, rounded."""
    scaled = np.clip(pixels, 0.0, 1.0)
    scaled *= 255
    scaled += 0.5
    return np.ascontiguousarray(scaled.astype(np.uint8).transpose(1, 2, 0))


def _to_image(pixels: Pixels) -> Image.Image:
    return Image.fromarray(_to_uint8(pixels))


def _grid(height: int, width: int) -> tuple[Pixels, Pixels]:
    """Pixel-centre coordinates normalised to 0..1: (y, x) of shapes (height, 1) and (1, width), which broadcast
    to the whole picture in the first operation that combines them (the same values as full grids, for a fraction
    of the work where a term depends on one axis only)."""
    ys = (np.arange(height, dtype=np.float32) + 0.5) / height
    xs = (np.arange(width, dtype=np.float32) + 0.5) / width
    return ys[:, None], xs[None, :]


def _screen(pixels: Pixels, light: Pixels) -> Pixels:
    """Screen blend: 1 - (1 - pixels)(1 - light), light clipped to 0..1, worked in place in one new array."""
    out = np.clip(light, 0.0, 1.0)
    np.subtract(1, out, out=out)
    out *= 1 - pixels
    np.subtract(1, out, out=out)
    return out


def _gradient(width: int, height: int, palette: Palette, rng: np.random.Generator) -> Pixels:
    """A sky from `sky_top` to `sky_bottom`, tilted by a seeded angle."""
    y, x = _grid(height, width)
    tilt = float(rng.uniform(-0.35, 0.35))
    t: Pixels = np.clip(y + tilt * (x - 0.5), 0.0, 1.0)
    top = _color(palette.sky_top)
    out = t * (_color(palette.sky_bottom) - top)
    out += top
    return out


def _landscape(pixels: Pixels, palette: Palette, family: str | None, rng: np.random.Generator) -> Pixels:
    """A dark band across the lower part: a lit skyline for cyberpunk, rolling hills otherwise."""
    height, width = pixels.shape[1:]
    band = _skyline_mask(width, height, rng) if family == "cyberpunk" else _hills_mask(width, height, rng)
    shade = _color(palette.subject) * 0.6 + _color(palette.sky_top) * 0.4
    out = _cover(pixels, shade, band)
    if family == "cyberpunk":
        out = _screen(out, _windows(width, height, band, palette, rng))
    return out


def _hills_mask(width: int, height: int, rng: np.random.Generator) -> Pixels:
    y, x = _grid(height, width)
    phase, freq = rng.uniform(0, 2 * math.pi, size=2).tolist(), rng.uniform(2.0, 5.0, size=2).tolist()
    ridge = 0.78 + 0.05 * np.sin(freq[0] * math.pi * x + phase[0]) + 0.03 * np.sin(freq[1] * 3 * x + phase[1])
    band: Pixels = np.clip((y - ridge) * height / 2.0, 0.0, 1.0)
    return band


def _skyline_mask(width: int, height: int, rng: np.random.Generator) -> Pixels:
    tops = np.empty(width, dtype=np.float32)
    column = 0
    while column < width:
        span = max(1, int(rng.uniform(0.04, 0.1) * width))
        tops[column : column + span] = rng.uniform(0.55, 0.8)
        column += span
    y, _ = _grid(height, width)
    return (y >= tops[None, :]).astype(np.float32)


def _windows(width: int, height: int, band: Pixels, palette: Palette, rng: np.random.Generator) -> Pixels:
    """Scattered lit windows inside the skyline, in the palette's accent colours."""
    cell = max(2, min(width, height) // 60)
    rows, cols = max(1, height // cell), max(1, width // cell)
    lit = rng.random((rows, cols)) < 0.12
    hues = rng.integers(0, len(palette.accents), size=(rows, cols))
    colors = np.array(palette.accents, dtype=np.float32).T[:, hues] * lit  # (3, rows, cols)
    light = colors.repeat(cell, axis=1).repeat(cell, axis=2)  # each window a cell x cell square
    padded = np.zeros((3, height, width), dtype=np.float32)
    h, w = min(height, light.shape[1]), min(width, light.shape[2])
    padded[:, :h, :w] = light[:, :h, :w] * 0.8
    return padded * band


def _bokeh(pixels: Pixels, palette: Palette, rng: np.random.Generator) -> Pixels:
    """Soft out-of-focus discs in the accent colours, screened onto the picture."""
    height, width = pixels.shape[1:]
    y, x = _grid(height, width)
    aspect = width / height
    light = np.zeros_like(pixels)
    for _ in range(int(rng.integers(9, 16))):
        cy, cx = float(rng.uniform(0.0, 0.75)), float(rng.uniform(0.0, 1.0))
        radius = float(rng.uniform(0.02, 0.08))
        color = _color(palette.accents[int(rng.integers(len(palette.accents)))])
        # A disc is zero beyond its radius: compute it only in its bounding box (the same pixels, far less work).
        rows = _span(cy, radius * aspect, height)
        columns = _span(cx, radius, width)
        distance = np.sqrt(((x[:, columns] - cx) * aspect) ** 2 + (y[rows, :] - cy) ** 2) / (radius * aspect)
        disc = np.clip((1.0 - distance) * 6.0, 0.0, 1.0) * (0.45 + 0.25 * distance)
        light[:, rows, columns] += disc * color * float(rng.uniform(0.35, 0.7))
    return _screen(pixels, light)


def _span(centre: float, half_width: float, size: int) -> slice:
    """The pixel indices whose centres lie within `half_width` of `centre` (both normalised to 0..1), plus one."""
    return slice(max(0, int((centre - half_width) * size) - 1), min(size, int((centre + half_width) * size) + 2))


MotifDrawer = Callable[[ImageDraw.ImageDraw, float, float, float], None]


def _draw_cat(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    """A sitting cat seen from behind: body, head, two ears and a curled tail."""
    draw.ellipse((cx - 0.55 * r, cy - 0.2 * r, cx + 0.55 * r, cy + r), fill=255)
    draw.ellipse((cx - 0.36 * r, cy - 0.75 * r, cx + 0.36 * r, cy - 0.05 * r), fill=255)
    for side in (-1, 1):
        draw.polygon(
            [
                (cx + side * 0.34 * r, cy - 0.45 * r),
                (cx + side * 0.3 * r, cy - 1.0 * r),
                (cx + side * 0.08 * r, cy - 0.68 * r),
            ],
            fill=255,
        )
    draw.arc((cx + 0.2 * r, cy + 0.35 * r, cx + 1.1 * r, cy + 1.05 * r), 90, 300, fill=255, width=max(1, int(r * 0.12)))


def _draw_flower(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    """A stem and a six-petalled bloom."""
    draw.line((cx, cy, cx, cy + 1.3 * r), fill=255, width=max(1, int(r * 0.07)))
    draw.ellipse((cx - 0.3 * r, cy - 0.6 * r, cx + 0.3 * r, cy), fill=255)
    for petal in range(6):
        angle = petal * math.pi / 3
        px, py = cx + 0.42 * r * math.cos(angle), cy - 0.3 * r + 0.42 * r * math.sin(angle)
        draw.ellipse((px - 0.28 * r, py - 0.28 * r, px + 0.28 * r, py + 0.28 * r), fill=255)


def _draw_planet(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    """A ringed sphere: the motif when the prompt names no subject the renderer knows."""
    draw.ellipse((cx - 0.6 * r, cy - 0.6 * r, cx + 0.6 * r, cy + 0.6 * r), fill=255)
    draw.ellipse((cx - 1.1 * r, cy - 0.18 * r, cx + 1.1 * r, cy + 0.18 * r), outline=255, width=max(1, int(r * 0.06)))


def _draw_cup(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    """A cup on its saucer, with its handle and a wisp of steam."""
    draw.polygon([(cx - 0.55 * r, cy - 0.4 * r), (cx + 0.55 * r, cy - 0.4 * r), (cx + 0.4 * r, cy + 0.55 * r),
                  (cx - 0.4 * r, cy + 0.55 * r)], fill=255)  # fmt: skip
    draw.arc((cx + 0.35 * r, cy - 0.25 * r, cx + 0.9 * r, cy + 0.3 * r), 270, 90, fill=255, width=max(1, int(r * 0.1)))
    draw.ellipse((cx - 0.85 * r, cy + 0.5 * r, cx + 0.85 * r, cy + 0.72 * r), fill=255)
    for offset in (-0.2, 0.15):
        draw.arc((cx + offset * r, cy - r, cx + (offset + 0.25) * r, cy - 0.5 * r), 90, 270, fill=255, width=2)


def _draw_chart(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    """A bar chart on its axis: the subject of a statistic."""
    draw.line((cx - 0.9 * r, cy + 0.7 * r, cx + 0.9 * r, cy + 0.7 * r), fill=255, width=max(1, int(r * 0.05)))
    for index, share in enumerate((0.45, 0.8, 0.6, 1.3)):
        left = cx - 0.8 * r + index * 0.42 * r
        draw.rectangle((left, cy + 0.7 * r - share * r, left + 0.3 * r, cy + 0.7 * r), fill=255)


_MOTIFS: tuple[tuple[tuple[str, ...], MotifDrawer], ...] = (
    (("cat", "kitten", "猫"), _draw_cat),
    (("flower", "rose", "blossom", "花"), _draw_flower),
    (("数据图表", "data chart"), _draw_chart),
    (("coffee", "cup", "mug", "咖啡", "杯"), _draw_cup),
)


def _motif_for(prompt: str) -> MotifDrawer:
    lowered = prompt.casefold()
    for words, drawer in _MOTIFS:
        if any(_mentions_word(word, lowered) for word in words):
            return drawer
    return _draw_planet


def _subject(pixels: Pixels, palette: Palette, prompt: str, rng: np.random.Generator) -> Pixels:
    """The central motif: a halo of `glow`, then the silhouette in `subject` with a glowing rim."""
    height, width = pixels.shape[1:]
    cx, cy = width * float(rng.uniform(0.38, 0.62)), height * float(rng.uniform(0.45, 0.58))
    r = min(width, height) * float(rng.uniform(0.26, 0.34))
    y, x = _grid(height, width)
    spread = 2 * (1.4 * r) ** 2
    # A Gaussian is the product of one along each axis: two short exps and a product, not one per pixel.
    halo = np.exp(-((y * height - cy) ** 2) / spread) * np.exp(-((x * width - cx) ** 2) / spread)
    out = _screen(pixels, halo * (_color(palette.glow) * 0.55))

    canvas = Image.new("L", (width * _SUPERSAMPLE, height * _SUPERSAMPLE), 0)
    _motif_for(prompt)(ImageDraw.Draw(canvas), cx * _SUPERSAMPLE, cy * _SUPERSAMPLE, r * _SUPERSAMPLE)
    shape = canvas.resize((width, height), Image.Resampling.BOX)
    rim = shape.filter(ImageFilter.GaussianBlur(max(1.0, r * 0.06)))
    out = _screen(out, _glow(rim, palette))
    shading = 0.75 + 0.5 * (1 - y)
    return _cover(out, _color(palette.subject) * shading, _weights(shape))


def _composed(pixels: Pixels, palette: Palette, prompt: str, composition: str) -> Pixels:
    """The subject placed by a named composition: a cover (large and central under a title band), a close-up
    (filling the frame, off centre), steps (three small subjects joined by a line) or a checklist (ticked rows
    beside a small subject)."""
    height, width = pixels.shape[1:]
    side = min(width, height)
    canvas = Image.new("L", (width * _SUPERSAMPLE, height * _SUPERSAMPLE), 0)
    draw = ImageDraw.Draw(canvas)
    drawer = _motif_for(prompt)
    s = _SUPERSAMPLE
    if composition == "cover":
        draw.rectangle((0, 0, width * s, int(height * 0.2) * s), fill=255)
        drawer(draw, width * 0.5 * s, height * 0.6 * s, side * 0.36 * s)
    elif composition == "closeup":
        drawer(draw, width * 0.58 * s, height * 0.55 * s, side * 0.62 * s)
    elif composition == "steps":
        draw.line((width * 0.18 * s, height * 0.5 * s, width * 0.82 * s, height * 0.5 * s), fill=255, width=3 * s)
        for x in (0.18, 0.5, 0.82):
            drawer(draw, width * x * s, height * 0.45 * s, side * 0.13 * s)
    else:
        for row in range(4):
            top = height * (0.2 + 0.17 * row) * s
            draw.rectangle((width * 0.1 * s, top, width * 0.2 * s, top + height * 0.08 * s), outline=255, width=3 * s)
            draw.rectangle(
                (width * 0.27 * s, top + height * 0.02 * s, width * 0.6 * s, top + height * 0.06 * s), fill=255
            )
        drawer(draw, width * 0.8 * s, height * 0.3 * s, side * 0.14 * s)
    shape = canvas.resize((width, height), Image.Resampling.BOX)
    rim = shape.filter(ImageFilter.GaussianBlur(max(1.0, side * 0.015)))
    return _cover(_screen(pixels, _glow(rim, palette)), _color(palette.subject), _weights(shape))


def _glow(rim: Image.Image, palette: Palette) -> Pixels:
    """The light of a blurred silhouette (`rim`, 0..255) in the palette's glow colour."""
    light: Pixels = np.asarray(rim, dtype=np.float32) * (_color(palette.glow) * (0.8 / 255))
    return light


def _weights(shape: Image.Image) -> Pixels:
    """A silhouette (mode L, 0..255) as a weight map in 0..1."""
    weights: Pixels = np.asarray(shape, dtype=np.float32) / 255
    return weights


def _cover(pixels: Pixels, colour: Pixels, coverage: Pixels | float) -> Pixels:
    """`colour` laid over `pixels` by the weight map (or one weight) `coverage`: all colour at 1, none at 0."""
    out = colour - pixels
    out *= coverage
    out += pixels
    return out


def _vignette(pixels: Pixels) -> Pixels:
    y, x = _grid(*pixels.shape[1:])
    falloff = 1.0 - 0.35 * ((x - 0.5) ** 2 + (y - 0.5) ** 2) * 2
    return pixels * falloff


def _apply_style(pixels: Pixels, style_strength: float) -> Pixels:
    """Scale saturation and contrast by the style strength: 0 flat and muted, 0.5 neutral, 1 vivid."""
    strength = _clamp01(style_strength)
    saturation, contrast = 0.3 + 1.4 * strength, 0.7 + 0.6 * strength
    luma = _luma(pixels)
    # 0.5 + (luma + (pixels - luma) * saturation - 0.5) * contrast, in three whole-picture passes
    out = pixels - luma
    out *= saturation * contrast
    out += (luma - 0.5) * contrast + 0.5
    return np.clip(out, 0.0, 1.0, out=out)


def _tint(pixels: Pixels, palette: Palette, amount: float) -> Pixels:
    """Blend towards a gradient map of the luminance, from `sky_top` (dark) to `glow` (light)."""
    luma = _luma(pixels)
    mapped = _color(palette.sky_top) * (1 - luma) + _color(palette.glow) * luma
    return _cover(pixels, mapped, amount)


def _grain(pixels: Pixels, rng: np.random.Generator) -> Pixels:
    """Film grain: one seeded normal draw per pixel (sigma 0.012, the same in every channel), drawn in float32."""
    noise = rng.standard_normal(size=pixels.shape[1:], dtype=np.float32)
    noise *= 0.012
    return pixels + noise


def _luma(pixels: Pixels) -> Pixels:
    """The Rec. 601 luma of planes, a (height, width) map; summed plane by plane, not by a BLAS product, whose
    threads busy-wait beside the render threads (a third more CPU than wall time per render)."""
    red, green, blue = _LUMA
    luma: Pixels = pixels[0] * red
    luma += pixels[1] * green
    luma += pixels[2] * blue
    return luma


def _inner_feather(repaint: npt.NDArray[np.bool_]) -> Pixels:
    """Blend weight for new content inside the mask: 1 deep inside, falling towards 0.5 at its edge."""
    mask = Image.fromarray(repaint.astype(np.uint8) * 255)
    blurred = np.asarray(mask.filter(ImageFilter.GaussianBlur(3)), dtype=np.float32) / 255
    return 0.5 + 0.5 * blurred
