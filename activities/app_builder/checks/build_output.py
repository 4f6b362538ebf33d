"""The build's output kept for the preview: the files `vite build` wrote to `dist/`, read within limits.

Only regular files inside `dist/` count: a symlink (to anything, inside or outside) is neither followed nor read,
and every path must be a project path (`workspace_path`). More than `MAX_PREVIEW_FILES` files or
`MAX_PREVIEW_BYTES` bytes in all keeps nothing, with a note that says why (`BuildOutput.note`). Blocking file
work: call it in a thread.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from stores.app_workspace import WorkspacePathError, workspace_path

MAX_PREVIEW_FILES = 300
MAX_PREVIEW_BYTES = 20 * 1024 * 1024
"""A build larger than this (all its files together) gets no preview."""


@dataclass
class BuildOutput:
    """The build's files (path → bytes), or none and why (`note`)."""

    files: dict[str, bytes] = field(default_factory=dict)
    note: str | None = None


def read_build(dist: Path, *, max_files: int = MAX_PREVIEW_FILES, max_bytes: int = MAX_PREVIEW_BYTES) -> BuildOutput:
    """The regular files under `dist` by their path inside it, within the limits."""
    if not dist.is_dir() or dist.is_symlink():
        return BuildOutput(note="the build wrote no dist/ folder: no preview")
    found: list[tuple[str, Path]] = []
    total = 0
    for folder, _, names in os.walk(dist, followlinks=False):
        for name in names:
            file = Path(folder) / name
            if file.is_symlink() or not file.is_file():
                continue
            try:
                path = workspace_path(file.relative_to(dist).as_posix())
            except WorkspacePathError:
                return BuildOutput(note=f"the build wrote a file with an unusable name ({name[:80]!r}): no preview")
            found.append((path, file))
            total += file.stat().st_size
            if len(found) > max_files:
                return BuildOutput(note=f"the build has more than {max_files} files: too big for a preview")
            if total > max_bytes:
                megabytes = max_bytes / (1024 * 1024)
                return BuildOutput(note=f"the build is larger than {megabytes:g} MB: too big for a preview")
    if "index.html" not in dict(found):
        return BuildOutput(note="the build wrote no index.html: no preview")
    return BuildOutput(files={path: file.read_bytes() for path, file in sorted(found)})
