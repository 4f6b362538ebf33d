"""Points on a canvas and drawn paths (a mask's), held compactly: a path is one flat array of doubles
(x0, y0, x1, y1, ...), 16 bytes a point.

The largest legal mask is 100 paths of 10 000 points. As one pydantic `Point` model per point it took many times
more memory to parse than packed (and as much again in the worker that reads it back; measured: README,
Performance). The JSON shape stays the seed's (`[{"x": .., "y": ..}, ...]`): `PackedPath` validates from a list of
points (checked by `Point`), and `api.bodies.load_json` packs well-formed points while it parses, so they are never
objects at all.
The stored form (`dump_paths` / `load_paths_json`) is `{"paths": [[x0, y0, x1, y1, ...], ...]}`.
"""

import json
from array import array
from collections.abc import Iterator, Sequence
from typing import Annotated, Any

from pydantic import Field, GetCoreSchemaHandler, GetJsonSchemaHandler, Strict, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from models.base import RequestModel

MAX_PATHS = 100
"""Most paths in one mask (more: `MASK_TOO_MANY_PATHS`, judged by `imaging.masks.validate_paths`)."""
MAX_POINTS_PER_PATH = 10_000
"""Most points in one path (more: `MASK_PATH_TOO_LONG`); the JSON schema of a path says so (`maxItems`)."""
MAX_COORDINATE = 100_000.0
"""Far beyond any canvas (4096 pixels a side): a point further out is a mistake, not a drawing."""
Coordinate = Annotated[float, Strict(), Field(allow_inf_nan=False, ge=-MAX_COORDINATE, le=MAX_COORDINATE)]
"""A finite number (an integer will do; `true`, `"1"`, NaN and Infinity will not)."""


class Point(RequestModel):
    """A point on the canvas, in image pixels."""

    x: Coordinate
    y: Coordinate


_POINTS = TypeAdapter(list[Point])


class PackedPath:
    """One drawn path: its points as a flat array of doubles."""

    __slots__ = ("flat",)

    def __init__(self, flat: "array[float]") -> None:
        if len(flat) % 2:
            raise ValueError("a packed path needs an x and a y for every point")
        self.flat = flat

    @classmethod
    def of(cls, points: Sequence[tuple[float, float]]) -> "PackedPath":
        return cls(array("d", [value for point in points for value in point]))

    def __len__(self) -> int:
        return len(self.flat) // 2

    def points(self) -> Iterator[tuple[float, float]]:
        flat = self.flat
        return ((flat[i], flat[i + 1]) for i in range(0, len(flat), 2))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PackedPath) and self.flat == other.flat

    def __hash__(self) -> int:
        return hash(self.flat.tobytes())

    def __repr__(self) -> str:
        return f"PackedPath({len(self)} points)"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        from_points = core_schema.no_info_after_validator_function(
            lambda points: cls.of([(point.x, point.y) for point in points]), _POINTS.core_schema
        )
        return core_schema.json_or_python_schema(
            json_schema=from_points,
            python_schema=core_schema.union_schema([core_schema.is_instance_schema(cls), from_points]),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda path: [{"x": x, "y": y} for x, y in path.points()]
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(_POINTS.core_schema), "maxItems": MAX_POINTS_PER_PATH}


def dump_paths(paths: Sequence[PackedPath]) -> bytes:
    """The stored form of `paths`."""
    stored = ",".join(json.dumps(path.flat.tolist(), separators=(",", ":")) for path in paths)  # a path at a time
    return f'{{"paths":[{stored}]}}'.encode()


def load_paths_json(data: bytes) -> list[PackedPath]:
    """Paths from their stored form."""
    return [PackedPath(array("d", path)) for path in json.loads(data)["paths"]]
