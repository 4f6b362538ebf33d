"""What one round of an app run changed against its base's final workspace: counts by manifest
(`round_changes`: blob keys are content addresses, so equal keys are equal files) and, file by file, a unified
diff (`workspace_diff`). Blocking file work: call these in a thread or a synchronous activity.

Limits: a file over `MAX_DIFF_FILE_BYTES` (either version) or one that is not UTF-8 text is summarised (its size,
no lines); a file's diff is cut at `MAX_DIFF_LINES` lines (`truncated`); once `MAX_DIFF_CHARS` of diff text are in
one answer, later files keep their status and line counts but no diff (`note` says so).
"""

from models.app_builder.rounds import FileDiff, RoundChanges
from models.app_builder.workspace import WorkspaceRef
from stores.app_workspace import load_manifest
from stores.blob_store import BlobStore
from stores.line_diff import unified_diff

MAX_DIFF_FILE_BYTES = 256 * 1024
MAX_DIFF_LINES = 400
MAX_DIFF_CHARS = 400_000


def round_changes(blobs: BlobStore, base: WorkspaceRef | None, workspace: WorkspaceRef) -> RoundChanges:
    """How many files `workspace` added, modified and removed against `base` (None: the empty project)."""
    before = load_manifest(blobs, base) if base is not None else {}
    after = load_manifest(blobs, workspace)
    return RoundChanges(
        added=len(after.keys() - before.keys()),
        modified=sum(1 for path, key in after.items() if path in before and before[path] != key),
        removed=len(before.keys() - after.keys()),
    )


def workspace_diff(blobs: BlobStore, base: WorkspaceRef | None, workspace: WorkspaceRef) -> list[FileDiff]:
    """Every file that differs between `base` (None: the empty project) and `workspace`, in path order."""
    before = load_manifest(blobs, base) if base is not None else {}
    after = load_manifest(blobs, workspace)
    diffs: list[FileDiff] = []
    budget = MAX_DIFF_CHARS
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        status = "added" if old is None else "removed" if new is None else "modified"
        entry = _file_diff(blobs, path, status, old, new)
        if entry.diff is not None:
            if len(entry.diff) > budget:
                entry.diff, entry.note = None, "diff left out: this answer's diff budget is spent"
            else:
                budget -= len(entry.diff)
        diffs.append(entry)
    return diffs


def _file_diff(blobs: BlobStore, path: str, status: str, old: str | None, new: str | None) -> FileDiff:
    sizes = [blobs.size(key) for key in (old, new) if key is not None]
    if max(sizes) > MAX_DIFF_FILE_BYTES:
        note = f"too large to diff ({max(sizes)} bytes)"
        return FileDiff.model_validate({"path": path, "status": status, "note": note})
    try:
        old_lines = _lines(blobs, old)
        new_lines = _lines(blobs, new)
    except UnicodeDecodeError:
        return FileDiff.model_validate({"path": path, "status": status, "note": "not UTF-8 text"})
    lines = list(
        unified_diff(
            old_lines,
            new_lines,
            fromfile="/dev/null" if old is None else f"a/{path}",
            tofile="/dev/null" if new is None else f"b/{path}",
        )
    )
    body = lines[2:]
    additions = sum(1 for line in body if line.startswith("+"))
    deletions = sum(1 for line in body if line.startswith("-"))
    truncated = len(lines) > MAX_DIFF_LINES
    shown = [
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines[:MAX_DIFF_LINES]
    ]
    return FileDiff.model_validate(
        {
            "path": path,
            "status": status,
            "additions": additions,
            "deletions": deletions,
            "diff": "".join(shown),
            "truncated": truncated,
            "note": f"diff cut at {MAX_DIFF_LINES} lines" if truncated else None,
        }
    )


def _lines(blobs: BlobStore, key: str | None) -> list[str]:
    return blobs.get(key).decode().splitlines(keepends=True) if key is not None else []
