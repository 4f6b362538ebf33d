"""The app builder's previews in the blob store: a build's files, one blob per file (content-addressed, owned by no
one, as the workspace's files), and a manifest (`{path: key}`, JSON) that is the build (`PreviewBuild`). The
gateway serves a preview's files by path from its manifest only. Blocking file work: call these in a thread."""

import json

from models.app_builder.quality import PreviewBuild
from models.app_builder.workspace import WorkspaceRef
from models.blobs import blob_ref, key_of
from stores.app_workspace import workspace_path
from stores.blob_store import BlobStore

FILE_KIND = "previewfile"
MANIFEST_KIND = "previewmanifest"


def store_build(blobs: BlobStore, files: dict[str, bytes], built_from: WorkspaceRef) -> PreviewBuild:
    """`files` (path → bytes) as blobs and their manifest: the build made from the workspace `built_from`."""
    if built_from.manifest_ref is None:
        raise ValueError("a build is made from a workspace snapshot")
    manifest = {workspace_path(path): blobs.put(data, kind=FILE_KIND, ext="bin") for path, data in files.items()}
    encoded = json.dumps(dict(sorted(manifest.items())), ensure_ascii=False).encode()
    key = blobs.put(encoded, kind=MANIFEST_KIND, ext="json")
    return PreviewBuild(
        manifest_ref=blob_ref(key),
        files=len(manifest),
        bytes=sum(len(data) for data in files.values()),
        workspace_ref=built_from.manifest_ref,
    )


def preview_manifest_key(preview: PreviewBuild) -> str:
    key = key_of(preview.manifest_ref)
    if key is None or not key.startswith(f"{MANIFEST_KIND}/"):
        raise ValueError(f"not a preview manifest: {preview.manifest_ref[:80]!r}")
    return key


def preview_file(blobs: BlobStore, manifest_key: str, path: str) -> bytes | None:
    """The file at `path` of the build whose manifest is `manifest_key`; None when the build has no such file (or
    the key is not a preview's manifest)."""
    if not manifest_key.startswith(f"{MANIFEST_KIND}/") or not blobs.exists(manifest_key):
        return None
    manifest: dict[str, str] = json.loads(blobs.get(manifest_key))
    key = manifest.get(path)
    return blobs.get(key) if key is not None else None
