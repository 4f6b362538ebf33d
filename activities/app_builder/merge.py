"""Three-way merge of one workspace file's versions (diff3, Breezy's `merge3`), pure functions over texts.

Rules:
- Texts are compared line by line, each line with its own ending (LF, CRLF, none on the last line), so the
  merged text keeps them byte for byte.
- A change on one side only is taken; the same change on both sides is taken once and is not a conflict.
- Different changes to overlapping lines are conflict regions (as in diff3, edits to adjacent lines overlap: an
  unchanged line must separate them). With any conflict the result text is `ours`, unchanged: the caller keeps
  every version by key and reports the conflict.
- `merge_versions` folds several tasks' versions of one file in task order: the first is `ours`, each next one is
  merged into it as `theirs`, all against the same base. A version None is the file absent (deleted, or never
  created); a base None is a new file, merged against an empty text. A side equal to the base takes the other
  side; a delete against an edit is one conflict region; every version identical gives that version.
"""

from dataclasses import dataclass

from merge3 import Merge3


@dataclass(frozen=True)
class MergeResult:
    """The merged text (`ours` when there are conflicts) and how many regions conflicted."""

    text: str
    conflicts: int = 0


@dataclass(frozen=True)
class VersionsMerge:
    """Several versions folded: the file's text (None: absent) and how many regions conflicted in all."""

    text: str | None
    conflicts: int = 0


def three_way_merge(base: str, ours: str, theirs: str) -> MergeResult:
    """`ours` and `theirs`, both changed from `base`, merged line by line."""
    merged: list[str] = []
    conflicts = 0
    for group in Merge3(_lines(base), _lines(ours), _lines(theirs)).merge_groups():
        if group[0] == "conflict":
            conflicts += 1
        else:
            merged.extend(group[1])
    return MergeResult(ours if conflicts else "".join(merged), conflicts)


def merge_versions(base: str | None, versions: list[str | None]) -> VersionsMerge:
    """Every version merged into the first, in order, against `base` (no versions: `base`)."""
    if not versions:
        return VersionsMerge(base)
    merged = versions[0]
    conflicts = 0
    for version in versions[1:]:
        step = _merge_pair(base, merged, version)
        merged, conflicts = step.text, conflicts + step.conflicts
    return VersionsMerge(merged, conflicts)


def _merge_pair(base: str | None, ours: str | None, theirs: str | None) -> VersionsMerge:
    if ours == theirs or theirs == base:
        return VersionsMerge(ours)
    if ours == base:
        return VersionsMerge(theirs)
    if ours is None or theirs is None:
        return VersionsMerge(ours, conflicts=1)
    result = three_way_merge(base or "", ours, theirs)
    return VersionsMerge(result.text, result.conflicts)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)
