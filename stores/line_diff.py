"""A unified diff of two texts' lines whose work is bounded, for diffs a user asks for (a chapter's versions, an app
round's files).

difflib's matcher is quadratic, and worse on some texts, in the lines it aligns: two legal 24,000-character
chapters of short lines took 14 s of CPU. So `unified_diff` aligns lines with difflib only while the old and new
line counts multiply to at most `MAX_ALIGNED_PAIRS` (a thousand lines on each side; a chapter has a few hundred
paragraphs). Past that it shows the lines the texts share at their start and end as context and everything between
as replaced: one hunk, found in linear time, that is still a correct diff (it applies), only not the smallest.
"""

import difflib
from collections.abc import Iterator

MAX_ALIGNED_PAIRS = 1_000_000
"""The most (old lines × new lines) handed to difflib's matcher."""


def unified_diff(
    old: list[str], new: list[str], *, fromfile: str, tofile: str, lineterm: str = "\n", context: int = 3
) -> Iterator[str]:
    """The lines of a unified diff from `old` to `new` (as `difflib.unified_diff` writes them), in bounded work."""
    if len(old) * len(new) <= MAX_ALIGNED_PAIRS:
        yield from difflib.unified_diff(old, new, fromfile, tofile, n=context, lineterm=lineterm)
        return
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    if start == len(old) == len(new):
        return
    old_changed, new_changed = len(old) - end, len(new) - end
    first = max(0, start - context)
    old_last, new_last = min(len(old), old_changed + context), min(len(new), new_changed + context)
    yield f"--- {fromfile}{lineterm}"
    yield f"+++ {tofile}{lineterm}"
    yield f"@@ -{_span(first, old_last)} +{_span(first, new_last)} @@{lineterm}"
    yield from (" " + line for line in old[first:start])
    yield from ("-" + line for line in old[start:old_changed])
    yield from ("+" + line for line in new[start:new_changed])
    yield from (" " + line for line in old[old_changed:old_last])


def _span(start: int, stop: int) -> str:
    """A hunk's range as unified diffs write it: `first,count` (1-based; `first` alone for one line)."""
    count = stop - start
    if count == 1:
        return str(start + 1)
    return f"{start + 1 if count else start},{count}"
