"""Mask claim-check helpers: seed 000 §8.1 limits and formats, and turning masks and paths into binary images."""

import base64
import io
import math
import random

import numpy as np
import pytest
from PIL import Image

from imaging.masks import (
    RASTER_POINTS,
    MaskError,
    combine_masks,
    decode_mask_base64,
    mask_coverage,
    mask_from_image,
    mask_from_paths,
    sniff_image_format,
    thinned,
    validate_paths,
)
from models.errors import ErrorCode
from models.image.requests import MAX_MASK_BYTES
from models.paths import MAX_PATHS, MAX_POINTS_PER_PATH, PackedPath


def encoded(image: Image.Image, fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def square(x0: float, y0: float, x1: float, y1: float) -> PackedPath:
    return PackedPath.of([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])


def values(mask: Image.Image) -> set[int]:
    return set(np.unique(np.asarray(mask)).tolist())


PNG = encoded(Image.new("L", (16, 16), 255))
JPEG = encoded(Image.new("RGB", (16, 16), (255, 255, 255)), "JPEG")
GIF = encoded(Image.new("L", (16, 16), 255), "GIF")
WEBP = encoded(Image.new("RGB", (16, 16), (255, 255, 255)), "WEBP")


@pytest.mark.parametrize(("data", "fmt"), [(PNG, "png"), (JPEG, "jpeg"), (WEBP, "webp"), (GIF, None), (b"", None)])
def test_formats_are_sniffed_from_magic_bytes(data: bytes, fmt: str | None) -> None:
    assert sniff_image_format(data) == fmt


def test_raw_base64_png_is_accepted() -> None:
    assert decode_mask_base64(b64(PNG)) == PNG


def test_a_data_url_is_accepted() -> None:
    assert decode_mask_base64(f"data:image/png;base64,{b64(PNG)}") == PNG


def test_jpeg_is_accepted() -> None:
    assert decode_mask_base64(f"data:image/jpeg;base64,{b64(JPEG)}") == JPEG


def reject(value: str, code: ErrorCode) -> MaskError:
    with pytest.raises(MaskError) as caught:
        decode_mask_base64(value)
    assert caught.value.code == code and caught.value.message
    return caught.value


def test_an_oversize_string_is_rejected_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    def must_not_decode(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("decoded an oversize mask")

    monkeypatch.setattr(base64, "b64decode", must_not_decode)
    error = reject("A" * (MAX_MASK_BYTES * 4 // 3 + 8), ErrorCode.MASK_TOO_LARGE)
    assert "10 MB" in error.message


def test_an_oversize_decoded_mask_is_rejected() -> None:
    value = b64(PNG + bytes(MAX_MASK_BYTES + 2 - len(PNG)))
    assert len(value) <= MAX_MASK_BYTES * 4 // 3 + 4
    reject(value, ErrorCode.MASK_TOO_LARGE)


@pytest.mark.parametrize("value", ["not base64!", "QUJD=", "", "data:image/png,rawbytes"])
def test_bad_base64_is_an_invalid_format(value: str) -> None:
    reject(value, ErrorCode.MASK_INVALID_FORMAT)


@pytest.mark.parametrize(
    "data",
    [GIF, WEBP, b"just some text\n", b"\x89PNG\r\n\x1a\n but not really a png"],
    ids=["gif", "webp", "text", "fake"],
)
def test_anything_but_a_readable_png_or_jpeg_is_an_invalid_format(data: bytes) -> None:
    error = reject(b64(data), ErrorCode.MASK_INVALID_FORMAT)
    assert "PNG" in error.message


def test_a_mask_wider_than_4096_pixels_is_too_large() -> None:
    error = reject(b64(encoded(Image.new("L", (4097, 2), 255))), ErrorCode.MASK_TOO_LARGE)
    assert "4096" in error.message


def test_mask_error_is_a_value_error() -> None:
    assert issubclass(MaskError, ValueError)


def test_path_limits_allow_the_maximum() -> None:
    validate_paths([PackedPath.of([(0, 0)] * MAX_POINTS_PER_PATH)] * MAX_PATHS)


def test_101_paths_are_too_many() -> None:
    with pytest.raises(MaskError) as caught:
        validate_paths([PackedPath.of([(0, 0)])] * (MAX_PATHS + 1))
    assert caught.value.code == ErrorCode.MASK_TOO_MANY_PATHS


def test_10001_points_make_a_path_too_long() -> None:
    with pytest.raises(MaskError) as caught:
        validate_paths([PackedPath.of([(0, 0)]), PackedPath.of([(1, 1)] * (MAX_POINTS_PER_PATH + 1))])
    assert caught.value.code == ErrorCode.MASK_PATH_TOO_LONG
    assert "第 2 条" in caught.value.message


def test_a_closed_path_is_filled() -> None:
    mask = mask_from_paths([square(10, 10, 50, 30)], (100, 100))
    grid = np.asarray(mask)
    assert mask.mode == "L" and mask.size == (100, 100) and values(mask) == {0, 255}
    assert grid[20, 30] == 255 and grid[5, 5] == 0 and grid[60, 30] == 0
    assert mask_coverage(mask) == pytest.approx(41 * 21 / 10_000, abs=0.005)


def test_short_paths_are_a_24_px_brush_stroke() -> None:
    mask = np.asarray(mask_from_paths([PackedPath.of([(20, 50), (80, 50)]), PackedPath.of([(50, 10)])], (100, 100)))
    column = mask[:, 50]
    assert 23 <= int((column[30:] == 255).sum()) <= 25
    assert mask[50, 10] == 255 and mask[50, 5] == 0
    assert mask[10, 50] == 255 and mask[10, 64] == 0


def test_paths_are_validated_when_rasterised() -> None:
    with pytest.raises(MaskError):
        mask_from_paths([PackedPath.of([(0, 0)])] * (MAX_PATHS + 1), (10, 10))


def test_a_grey_mask_is_cut_at_127_and_resized_nearest() -> None:
    image = Image.new("L", (4, 2), 0)
    image.paste(128, (2, 0, 4, 2))
    image.putpixel((0, 0), 127)
    mask = mask_from_image(encoded(image), (40, 20))
    assert mask.size == (40, 20) and values(mask) == {0, 255}
    assert mask_coverage(mask) == 0.5


def test_transparency_decides_when_it_varies() -> None:
    strokes = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    strokes.paste((0, 0, 0, 255), (0, 0, 5, 10))
    mask = mask_from_image(encoded(strokes), (10, 10))
    assert np.asarray(mask)[:, :5].min() == 255 and np.asarray(mask)[:, 5:].max() == 0


def test_luminance_decides_when_alpha_is_uniform() -> None:
    opaque = Image.new("RGBA", (10, 10), (0, 0, 0, 255))
    opaque.paste((255, 255, 255, 255), (0, 0, 10, 3))
    assert mask_coverage(mask_from_image(encoded(opaque), (10, 10))) == pytest.approx(0.3)


def test_a_jpeg_mask_is_binarised() -> None:
    photo = Image.new("RGB", (32, 32), (0, 0, 0))
    photo.paste((255, 255, 255), (0, 0, 16, 32))
    mask = mask_from_image(encoded(photo, "JPEG"), (32, 32))
    assert values(mask) == {0, 255} and mask_coverage(mask) == pytest.approx(0.5, abs=0.05)


def test_undecodable_mask_bytes_are_an_invalid_format() -> None:
    with pytest.raises(MaskError) as caught:
        mask_from_image(b"nope", (10, 10))
    assert caught.value.code == ErrorCode.MASK_INVALID_FORMAT


def test_combined_masks_are_the_union_at_the_first_size() -> None:
    left = mask_from_paths([square(0, 0, 49, 99)], (100, 100))
    top = Image.new("L", (10, 10), 0)
    top.paste(255, (0, 0, 10, 5))
    union = combine_masks(left, top)
    assert union.size == (100, 100) and values(union) == {0, 255}
    assert mask_coverage(union) == pytest.approx(0.75)


def test_coverage_of_an_empty_and_a_full_mask() -> None:
    assert mask_coverage(Image.new("L", (5, 5), 0)) == 0.0
    assert mask_coverage(Image.new("L", (5, 5), 255)) == 1.0


def test_the_largest_mask_of_random_points_is_rasterised_in_bounded_work() -> None:
    rng = random.Random(3)
    paths = [
        PackedPath.of([(rng.uniform(0, 1024), rng.uniform(0, 1024)) for _ in range(MAX_POINTS_PER_PATH)])
        for _ in range(MAX_PATHS)
    ]

    kept = thinned(paths)
    mask = np.asarray(mask_from_paths(paths, (1024, 1024)))

    assert sum(len(points) for points in kept) <= RASTER_POINTS + MAX_PATHS  # filling costs points × rows
    assert all(points[0] == next(path.points()) for points, path in zip(kept, paths, strict=True))
    assert 0.2 < (mask == 255).mean() < 1  # still a mask of those paths, not nothing


def test_thinning_keeps_a_dense_stroke_within_a_pixel_or_two() -> None:
    circle = [(50 + 40 * math.cos(t / 2000 * math.tau), 50 + 40 * math.sin(t / 2000 * math.tau)) for t in range(2000)]
    exact = np.asarray(mask_from_paths([PackedPath.of(circle)], (100, 100)))
    thinned = np.asarray(mask_from_paths([PackedPath.of(circle)] * 20, (100, 100)))  # 40 000 points: every 2nd

    assert (exact != thinned).sum() <= 4
