"""`llm.json_stream.JsonStrings`: a JSON answer's string values, decoded, as its deltas arrive, with their paths;
prose and a fence before the value and a note after it are not read."""

import json

import pytest

from llm.json_stream import JsonStrings, StringPiece

DOCUMENT = {
    "options": [
        {"id": "A", "title": "怀表里的胶卷", "summary": '老陈"把"证据\n藏在怀表里 😀', "score": 0.5},
        {"id": "B", "title": "t", "summary": "s", "tags": ["x", "y"], "ok": True, "none": None},
    ],
    "text": "两个方向",
}
VALUES = {
    ("options", 0, "id"): "A",
    ("options", 0, "title"): "怀表里的胶卷",
    ("options", 0, "summary"): '老陈"把"证据\n藏在怀表里 😀',
    ("options", 1, "id"): "B",
    ("options", 1, "title"): "t",
    ("options", 1, "summary"): "s",
    ("options", 1, "tags", 0): "x",
    ("options", 1, "tags", 1): "y",
    ("text",): "两个方向",
}


def read(text: str, size: int) -> list[StringPiece]:
    strings = JsonStrings()
    return [piece for i in range(0, len(text), size) for piece in strings.feed(text[i : i + size])]


def values(pieces: list[StringPiece]) -> dict[tuple[str | int, ...], str]:
    found: dict[tuple[str | int, ...], str] = {}
    for piece in pieces:
        found[piece.path] = found.get(piece.path, "") + piece.text
    return found


@pytest.mark.parametrize("size", [1, 3, 1000])
@pytest.mark.parametrize("ascii_only", [False, True], ids=["utf8", "escaped"])
@pytest.mark.parametrize(
    "wrap",
    [
        "{}",
        "好的：\n```json\n{}\n```\n注：可以把 {{标题}} 换成你自己的。",
        "Sure:\n{}\nI hope {{this}} helps.",
    ],
    ids=["bare", "fenced-with-braces-after", "prose"],
)
def test_every_string_value_is_read_with_its_path_however_the_deltas_fall(
    size: int, ascii_only: bool, wrap: str
) -> None:
    text = wrap.format(json.dumps(DOCUMENT, ensure_ascii=ascii_only, indent=2))

    pieces = read(text, size)

    assert values(pieces) == VALUES
    assert sum(p.first for p in pieces) == sum(p.last for p in pieces) == len(VALUES)


def test_a_value_arrives_as_it_is_written_and_says_where_it_starts_and_ends() -> None:
    strings = JsonStrings()

    assert strings.feed('{"options": [{"title": "怀表') == [StringPiece(("options", 0, "title"), "怀表", first=True)]
    assert strings.feed("里的") == [StringPiece(("options", 0, "title"), "里的")]
    assert strings.feed('胶卷", "summary": "') == [StringPiece(("options", 0, "title"), "胶卷", last=True)]
    assert strings.feed('"}], "text": "x"}') == [
        StringPiece(("options", 0, "summary"), "", first=True, last=True),
        StringPiece(("text",), "x", first=True, last=True),
    ]
    assert strings.feed('{"text": "a second value"}') == [], "reading ends with the first value"


def test_a_trailing_comma_or_a_cut_answer_only_ends_what_is_read() -> None:
    assert values(read('{"a": ["x", "y",], "b": "z",}', 2)) == {("a", 0): "x", ("a", 1): "y", ("b",): "z"}
    assert values(read('{"a": "cut sho', 4)) == {("a",): "cut sho"}
