"""A workspace snapshot as a download: the zip of its files under one folder, and its file listing.

Blocking (blob reads): call these in a thread. The zip is deterministic: files in path order, one fixed timestamp
and fixed attributes, so the same snapshot always gives the same bytes.
"""

import io
import zipfile

from activities.app_builder.workspace import load_manifest, workspace_path
from models.app_builder.workspace import WorkspaceRef
from stores.blob_store import LocalBlobStore

ZIP_TIMESTAMP = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip entry can carry: every entry has it."""
FILE_MODE = 0o644
UNIX = 3


def workspace_zip(blobs: LocalBlobStore, workspace: WorkspaceRef, root: str) -> bytes:
    """Every file of the snapshot under `root/` (a project path), deflated."""
    folder = workspace_path(root)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, key in sorted(load_manifest(blobs, workspace).items()):
            entry = zipfile.ZipInfo(f"{folder}/{path}", date_time=ZIP_TIMESTAMP)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.create_system = UNIX
            entry.external_attr = FILE_MODE << 16
            archive.writestr(entry, blobs.get(key))
    return buffer.getvalue()


def workspace_listing(blobs: LocalBlobStore, workspace: WorkspaceRef) -> list[tuple[str, int]]:
    """Each file's path and size in bytes, in path order."""
    return [(path, blobs.size(key)) for path, key in sorted(load_manifest(blobs, workspace).items())]
