"""Choosing among a hosted model's documented sizes: the one whose aspect ratio is nearest the request's,
compared as log ratios (so 2:1 and 1:2 are equally far from square)."""

import math


def nearest_aspect(sizes: tuple[tuple[int, int], ...], width: int, height: int) -> tuple[int, int]:
    """The (width, height) of `sizes` nearest `width`:`height` in aspect ratio; the first of equals wins."""
    wanted = math.log(width / height)
    return min(sizes, key=lambda size: abs(math.log(size[0] / size[1]) - wanted))
