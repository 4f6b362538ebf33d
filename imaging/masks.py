"""Mask handling for the claim check: validate what the user sent, then turn it into a binary mask image.

Limits follow seed 000 §8.1: a mask is a Base64 PNG/JPG of at most 10 MB (and, like images, at most 4096
pixels a side), or at most 100 drawn paths of at most 10 000 points each. Masks produced here are mode "L"
images, 255 = repaint and 0 = keep.
"""

import binascii
import math
from collections.abc import Sequence, Sized
from typing import Literal

import numpy as np
from PIL import Image, ImageChops, ImageDraw

from imaging.rendering import MAX_SIDE, ImageDecodeError, ImageTooLargeError, decode_image
from models.errors import ErrorCode
from models.image.requests import MAX_MASK_BYTES, MAX_MASK_FIELD_CHARS
from models.paths import MAX_PATHS, MAX_POINTS_PER_PATH, PackedPath

RASTER_POINTS = 20_000
"""Most points rasterised for one mask: filling a polygon costs its points × the image's rows (a maximal mask of
random points took tens of seconds: README, Performance), so paths with more points in all are thinned evenly to
this many."""
BRUSH_WIDTH = 24
"""Width in pixels of the stroke drawn for a path too short to be a polygon (fewer than 3 points)."""

_MAX_ENCODED_CHARS = 4 * math.ceil(MAX_MASK_BYTES / 3)
_BASE64_CHUNK = 256 * 1024
"""Characters per decoded chunk (a multiple of 4)."""
_ACCEPTED_FORMATS = ("png", "jpeg")

ImageFormat = Literal["png", "jpeg", "webp"]
FILE_EXTENSIONS: dict[ImageFormat, str] = {"png": "png", "jpeg": "jpg", "webp": "webp"}
"""The file extension blobs of each format are stored under."""


class MaskError(ValueError):
    """A mask the user sent is unusable; `message` says why, for the user."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def sniff_image_format(data: bytes) -> ImageFormat | None:
    """The image format named by the leading magic bytes, or None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def decode_mask_base64(value: str) -> bytes:
    """Decode a Base64 mask (raw, or a `data:image/...;base64,` URL) into PNG or JPEG bytes.

    Raises `MaskError` with MASK_TOO_LARGE above 10 MB (judged on the encoded length before decoding,
    then on the decoded bytes) and MASK_INVALID_FORMAT for bad Base64 or anything but a readable PNG/JPG.
    """
    if len(value) > MAX_MASK_FIELD_CHARS:
        raise _too_large()
    payload = _strip_data_url(value.strip())
    if len(payload) > _MAX_ENCODED_CHARS:
        raise _too_large()
    try:
        data = _decode_base64(payload)
    except (binascii.Error, ValueError) as exc:
        raise MaskError(ErrorCode.MASK_INVALID_FORMAT, "蒙版不是有效的 Base64 编码 (mask is not valid Base64)") from exc
    if len(data) > MAX_MASK_BYTES:
        raise _too_large()
    if sniff_image_format(data) not in _ACCEPTED_FORMATS:
        raise _not_png_or_jpeg()
    _open(data)
    return data


def validate_paths(paths: Sequence[Sized]) -> None:
    """Raise `MaskError` if there are more than 100 paths or a path has more than 10 000 points."""
    if len(paths) > MAX_PATHS:
        raise MaskError(
            ErrorCode.MASK_TOO_MANY_PATHS,
            f"蒙版路径过多：{len(paths)} 条，最多 {MAX_PATHS} 条 (too many mask paths: max {MAX_PATHS})",
        )
    for index, path in enumerate(paths):
        if len(path) > MAX_POINTS_PER_PATH:
            raise MaskError(
                ErrorCode.MASK_PATH_TOO_LONG,
                f"第 {index + 1} 条蒙版路径有 {len(path)} 个点，最多 {MAX_POINTS_PER_PATH} 个"
                f" (mask path {index + 1} has too many points: max {MAX_POINTS_PER_PATH})",
            )


def mask_from_image(data: bytes, size: tuple[int, int]) -> Image.Image:
    """A binary mode "L" mask of `size` from mask image bytes.

    The alpha channel decides when the image has transparency that varies (painted strokes on a
    transparent canvas); otherwise luminance above 127 marks the area to repaint.
    """
    image = _open(data)
    source = _alpha_if_varied(image) or image.convert("L")
    return _binarise(source).resize(size, Image.Resampling.NEAREST)


def mask_from_paths(paths: Sequence[PackedPath], size: tuple[int, int]) -> Image.Image:
    """Rasterise drawn paths (pixel coordinates) into a binary mode "L" mask of `size`.

    Paths of 3 or more points are closed and filled; shorter ones are drawn as a round brush stroke
    `BRUSH_WIDTH` pixels wide. Beyond `RASTER_POINTS` points in all, each path keeps every k-th point (and its
    last), k the same for all.
    """
    validate_paths(paths)
    mask = Image.new("L", size, 0)
    draw = ImageDraw.Draw(mask)
    for points in thinned(paths):
        if len(points) >= 3:
            draw.polygon(points, fill=255, outline=255)
        elif points:
            _stroke(draw, points)
    return mask


def thinned(paths: Sequence[PackedPath]) -> list[list[tuple[float, float]]]:
    """The points of each path that are rasterised: all of them up to `RASTER_POINTS` in all, else every k-th
    point of each polygon (and its last point), k the same for all paths."""
    step = max(1, math.ceil(sum(len(path) for path in paths) / RASTER_POINTS))
    kept = []
    for path in paths:
        points = list(path.points())
        if step > 1 and len(points) >= 3:
            points = points[::step] + ([points[-1]] if (len(points) - 1) % step else [])
        kept.append(points)
    return kept


def combine_masks(a: Image.Image, b: Image.Image) -> Image.Image:
    """The union of two masks, at the size of `a` (`b` is resized NEAREST if needed)."""
    first = _binarise(a.convert("L"))
    second = _binarise(b.convert("L"))
    if second.size != first.size:
        second = second.resize(first.size, Image.Resampling.NEAREST)
    return ImageChops.lighter(first, second)


def mask_coverage(mask: Image.Image) -> float:
    """The fraction (0..1) of the mask's pixels marked for repainting (value above 127)."""
    pixels = np.asarray(mask.convert("L"))
    return float((pixels > 127).mean()) if pixels.size else 0.0


def _decode_base64(payload: str) -> bytes:
    """Strict Base64, decoded a chunk at a time: each chunk takes a few milliseconds with the GIL held, so a
    thread decoding a 13 MB mask lets other threads (the gateway's event loop) run between chunks."""
    if len(payload) % 4:
        raise binascii.Error("Base64 length is not a multiple of 4")
    decoded = bytearray()
    for start in range(0, len(payload), _BASE64_CHUNK):
        decoded += binascii.a2b_base64(payload[start : start + _BASE64_CHUNK].encode("ascii"), strict_mode=True)
    return bytes(decoded)


def _strip_data_url(value: str) -> str:
    if not value.startswith("data:"):
        return value
    header, _, payload = value.partition(",")
    if not header.endswith(";base64"):
        raise MaskError(
            ErrorCode.MASK_INVALID_FORMAT,
            "蒙版 data URL 必须是 Base64 编码 (mask data URL must be Base64 encoded)",
        )
    return payload


def _too_large() -> MaskError:
    return MaskError(
        ErrorCode.MASK_TOO_LARGE,
        f"蒙版过大，最大 {MAX_MASK_BYTES // (1024 * 1024)} MB (mask is larger than 10 MB)",
    )


def _not_png_or_jpeg() -> MaskError:
    return MaskError(ErrorCode.MASK_INVALID_FORMAT, "蒙版必须是 PNG 或 JPG 图片 (mask must be a PNG or JPG image)")


def _open(data: bytes) -> Image.Image:
    """Fully decode mask bytes: more than `MAX_SIDE` pixels a side is MASK_TOO_LARGE, anything else wrong
    MASK_INVALID_FORMAT."""
    try:
        return decode_image(data)
    except ImageTooLargeError as exc:
        raise MaskError(
            ErrorCode.MASK_TOO_LARGE,
            f"蒙版尺寸过大，每边最多 {MAX_SIDE} 像素 (mask is larger than {MAX_SIDE} pixels a side)",
        ) from exc
    except ImageDecodeError as exc:
        raise _not_png_or_jpeg() from exc


def _alpha_if_varied(image: Image.Image) -> Image.Image | None:
    if image.mode not in ("RGBA", "LA", "PA") and "transparency" not in image.info:
        return None
    alpha = image.convert("RGBA").getchannel("A")
    low, high = alpha.getextrema()
    return alpha if low != high else None


def _binarise(gray: Image.Image) -> Image.Image:
    return gray.point(lambda value: 255 if value > 127 else 0)


def _stroke(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]]) -> None:
    radius = BRUSH_WIDTH / 2
    if len(points) == 2:
        draw.line(points, fill=255, width=BRUSH_WIDTH)
    for x, y in points:
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=255)
