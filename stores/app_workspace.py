"""The app builder's workspace in the blob store: each file version is a text blob, a manifest (`{path: key}`,
JSON) is a snapshot (`models.app_builder.workspace`); a snapshot also comes as a download (the zip of its files under
one folder) and as its file listing. Blocking file work: call these in a thread or a synchronous activity.

Paths are POSIX, relative, inside the project: `workspace_path` refuses anything else (absolute paths, `..`,
backslashes, empty parts), so no agent's output can name a file outside the project it writes.
"""

import json
from pathlib import PurePosixPath

from models.app_builder.workspace import WorkspaceRef
from models.blobs import blob_ref, key_of
from stores.blob_store import BlobStore
from stores.zip_archive import zip_bytes

FILE_KIND = "appfile"
MANIFEST_KIND = "appmanifest"
MAX_PATH_CHARS = 200


class WorkspacePathError(ValueError):
    """A path that does not name a file inside the project."""


def workspace_path(path: str) -> str:
    """`path` normalised (`./src/a.ts` → `src/a.ts`); raises `WorkspacePathError` when it leaves the project."""
    if not path or len(path) > MAX_PATH_CHARS or "\\" in path or "\x00" in path:
        raise WorkspacePathError(f"not a project path: {path[:80]!r}")
    pure = PurePosixPath(path)
    parts = [part for part in pure.parts if part != "."]
    if pure.is_absolute() or not parts or any(part in ("..", "") for part in parts):
        raise WorkspacePathError(f"not a project path: {path[:80]!r}")
    return "/".join(parts)


def store_text(blobs: BlobStore, text: str) -> str:
    """One file version; its blob key."""
    return blobs.put(text.encode(), kind=FILE_KIND, ext="txt")


def read_text(blobs: BlobStore, key: str) -> str:
    return blobs.get(key).decode()


def load_manifest(blobs: BlobStore, workspace: WorkspaceRef) -> dict[str, str]:
    """The snapshot's `{path: key}` (empty for the empty workspace)."""
    if workspace.manifest_ref is None:
        return {}
    key = key_of(workspace.manifest_ref)
    if key is None:
        raise ValueError(f"not a blob reference: {workspace.manifest_ref[:80]!r}")
    manifest: dict[str, str] = json.loads(blobs.get(key))
    return manifest


def store_manifest(blobs: BlobStore, manifest: dict[str, str]) -> WorkspaceRef:
    """A snapshot of `manifest`; its reference with the file count and total size."""
    data = json.dumps(dict(sorted(manifest.items())), ensure_ascii=False).encode()
    key = blobs.put(data, kind=MANIFEST_KIND, ext="json")
    size = sum(blobs.size(file_key) for file_key in manifest.values())
    return WorkspaceRef(manifest_ref=blob_ref(key), files=len(manifest), bytes=size)


def read_files(blobs: BlobStore, workspace: WorkspaceRef) -> dict[str, str]:
    """Every file of the snapshot as text, by path."""
    return {path: read_text(blobs, key) for path, key in load_manifest(blobs, workspace).items()}


def store_files(blobs: BlobStore, files: dict[str, str]) -> WorkspaceRef:
    """A snapshot holding exactly `files` (path → text)."""
    return store_manifest(blobs, {workspace_path(path): store_text(blobs, text) for path, text in files.items()})


def workspace_zip(blobs: BlobStore, workspace: WorkspaceRef, root: str) -> bytes:
    """Every file of the snapshot under `root/` (a project path), deflated. Deterministic: files in path order, one
    fixed timestamp and fixed attributes, so the same snapshot always gives the same bytes."""
    folder = workspace_path(root)
    manifest = sorted(load_manifest(blobs, workspace).items())
    return zip_bytes((f"{folder}/{path}", blobs.get(key)) for path, key in manifest)


def workspace_listing(blobs: BlobStore, workspace: WorkspaceRef) -> list[tuple[str, int]]:
    """Each file's path and size in bytes, in path order."""
    return [(path, blobs.size(key)) for path, key in sorted(load_manifest(blobs, workspace).items())]
