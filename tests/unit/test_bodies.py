"""Request bodies as the intake process reads them: points packed while parsing, everything else as parsed, and
the same model errors as before for anything that is not a well-formed point."""

import json
import subprocess
import sys

import pytest

from api.bodies import InvalidBody, load_json, parse_body
from models.image.requests import ChatRequest
from models.paths import MAX_PATHS, MAX_POINTS_PER_PATH, PackedPath, dump_paths, load_paths_json


def chat(coordinates: object) -> list[bytes]:
    return [json.dumps({"text": "换成花", "maskData": {"coordinates": coordinates}}).encode()]


def test_lists_of_points_become_packed_paths_and_other_objects_stay() -> None:
    document = load_json(
        b'{"a": [{"x": 1, "y": 2.5}, {"y": 4, "x": 3}], "b": {"x": 5, "y": 6}, "c": [{"x": 7, "y": 8}, 9], "d": []}'
    )

    assert document["a"] == PackedPath.of([(1, 2.5), (3, 4)])
    assert document["b"] == {"x": 5, "y": 6}  # a point on its own is not a path
    assert document["c"] == [{"x": 7, "y": 8}, 9]
    assert document["d"] == []


def test_one_path_and_several_paths_validate_alike() -> None:
    one = parse_body(ChatRequest, chat([{"x": 1, "y": 2}, {"x": 3, "y": 4}]))
    several = parse_body(ChatRequest, chat([[{"x": 1, "y": 2}, {"x": 3, "y": 4}], [{"x": 5, "y": 6}]]))

    assert one.mask_data is not None and one.mask_data.paths() == [PackedPath.of([(1, 2), (3, 4)])]
    assert several.mask_data is not None and [len(path) for path in several.mask_data.paths()] == [2, 1]


def test_the_pydantic_json_parser_and_the_packing_one_agree() -> None:
    body = chat([[{"x": 1.5, "y": 2}], [{"x": 3, "y": -4}]])

    assert ChatRequest.model_validate_json(body[0]) == parse_body(ChatRequest, body)


@pytest.mark.parametrize("coordinate", ["true", '"1"', "1e300", "-100001", "null", '{"x": 1}'], ids=lambda c: f"x={c}")
def test_a_point_that_is_not_well_formed_is_judged_by_the_model(coordinate: str) -> None:
    body = (
        '{"text": "猫", "maskData": {"coordinates": [{"x": 1, "y": 2}, {"x": ' + coordinate + ', "y": 2}]}}'
    ).encode()

    with pytest.raises(InvalidBody) as caught:
        parse_body(ChatRequest, [body])

    assert caught.value.errors[0]["loc"][:2] == ("maskData", "coordinates")


@pytest.mark.parametrize(
    "body",
    [b'{"text": NaN}', b'{"text": "a", "text": "b"}', b"{", b"[" * 100_000, b'{"x": Infinity, "y": 1}'],
    ids=["NaN", "duplicate key", "truncated", "nested too deeply", "Infinity in a point"],
)
def test_what_is_not_json_is_invalid_json(body: bytes) -> None:
    with pytest.raises(InvalidBody) as caught:
        load_json(body)

    assert caught.value.errors[0]["type"] == "json_invalid"


def test_stored_paths_read_back_the_same() -> None:
    paths = [PackedPath.of([(0.5, 1), (2, 3)]), PackedPath.of([(4, 5)])]

    assert load_paths_json(dump_paths(paths)) == paths


MEASURE = """
import random, resource, sys
from api.bodies import parse_body
from models.image.requests import ChatRequest
paths, points = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(1)
def point():
    return '{"x":%.2f,"y":%.2f}' % (rng.uniform(0, 1024), rng.uniform(0, 1024))
def path():
    return "[" + ",".join(point() for _ in range(points)) + "]"
body = ('{"text":"cat","maskData":{"coordinates":[' + ",".join(path() for _ in range(paths)) + "]}}").encode()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
parsed = parse_body(ChatRequest, [body])
assert sum(len(path) for path in parsed.mask_data.paths()) == paths * points
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def test_the_largest_legal_mask_is_parsed_in_bounded_memory() -> None:
    """A fresh interpreter parses a maximal body (26 MB): its peak memory grows by far less than the 1.1 GB that
    pydantic's JSON parser took for it (the bound leaves room for allocator slack)."""
    command = [sys.executable, "-c", MEASURE, str(MAX_PATHS), str(MAX_POINTS_PER_PATH)]
    result = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)

    assert int(result.stdout) < 200 * 1024  # KiB
