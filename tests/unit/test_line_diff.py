"""Issue 50 #3: the diff of two texts does bounded work. Within `MAX_ALIGNED_PAIRS` it is difflib's; past it (two
chapters of 12,000 one-character lines, where difflib's matcher spent seconds) it is one hunk of what lies between
the shared start and end, which is a correct diff: applied to the old text it gives the new one."""

import random

import pytest

from stores.line_diff import MAX_ALIGNED_PAIRS, unified_diff

CJK = [chr(0x4E00 + i) for i in range(2000)]


def applied(old: list[str], diff: list[str]) -> list[str]:
    """`old` with the unified diff `diff` (lines without terminators) applied."""
    result, at = [], 0
    for line in diff[2:]:
        if line.startswith("@@"):
            first, _, count = line.split()[1][1:].partition(",")
            start = int(first) if count == "0" else int(first) - 1
            result += old[at:start]
            at = start
        elif line.startswith(("-", " ")):
            assert old[at] == line[1:], (at, line)
            at += 1
            if line.startswith(" "):
                result.append(line[1:])
        else:
            result.append(line[1:])
    return result + old[at:]


def short_lines(seed: int, count: int, kinds: int) -> list[str]:
    rng = random.Random(seed)
    return [CJK[rng.randrange(kinds)] for _ in range(count)]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (short_lines(1, 12_000, 120), short_lines(2, 12_000, 120)),  # far past the bound: the shared ends only
        (
            ["序章"] * 5 + short_lines(3, 3_000, 50) + ["尾声"] * 4,
            ["序章"] * 5 + short_lines(4, 2_000, 50) + ["尾声"] * 4,
        ),
        (short_lines(5, 900, 30), short_lines(6, 1_000, 30)),  # within it: difflib's own
        (["雨夜", "林舟推开门。"], ["雨夜", "林舟推开门。", "苏念在等。"]),
    ],
)
def test_the_diff_applied_to_the_old_text_gives_the_new(old: list[str], new: list[str]) -> None:
    diff = list(unified_diff(old, new, fromfile="v1", tofile="v2", lineterm=""))

    assert diff[:2] == ["--- v1", "+++ v2"]
    assert applied(old, diff) == new
    if len(old) * len(new) > MAX_ALIGNED_PAIRS:
        assert sum(line.startswith("@@") for line in diff) == 1


def test_past_the_bound_the_hunk_keeps_the_shared_start_and_end_as_context() -> None:
    old = ["序章", "一", "二", "三", "旧", *short_lines(7, 2000, 40), "旧", "四", "五", "尾声"]
    new = ["序章", "一", "二", "三", "新", *short_lines(8, 1500, 40), "新", "四", "五", "尾声"]

    diff = list(unified_diff(old, new, fromfile="v1", tofile="v2", lineterm=""))

    assert diff[2] == f"@@ -2,{len(old) - 1} +2,{len(new) - 1} @@"
    assert diff[3:6] == [" 一", " 二", " 三"] and diff[-3:] == [" 四", " 五", " 尾声"]
    assert list(unified_diff(old, list(old), fromfile="v1", tofile="v2")) == []
