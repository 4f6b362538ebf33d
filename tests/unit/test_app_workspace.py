"""The workspace zip (round trip, determinism, root folder) and the file listing."""

import io
import time
import zipfile
from pathlib import Path

import pytest

from models.app_builder.workspace import WorkspaceRef
from stores.app_workspace import WorkspacePathError, store_files, workspace_listing, workspace_zip
from stores.blob_store import BlobStore, LocalBlobStore

FILES = {
    "src/main.tsx": "import { App } from './App'\n",
    "package.json": '{"name": "shop"}\n',
    "src/App.tsx": "export function App() {\n  return <h1>Café</h1>\r\n}\n",
}


@pytest.fixture
def blobs(tmp_path: Path) -> BlobStore:
    return LocalBlobStore(tmp_path / "blobs")


@pytest.fixture
def snapshot(blobs: BlobStore) -> WorkspaceRef:
    return store_files(blobs, FILES)


def test_the_zip_holds_every_file_under_the_root(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    with zipfile.ZipFile(io.BytesIO(workspace_zip(blobs, snapshot, "shop"))) as archive:
        names = archive.namelist()
        texts = {name.removeprefix("shop/"): archive.read(name).decode() for name in names}
        methods = {info.compress_type for info in archive.infolist()}

    assert names == ["shop/package.json", "shop/src/App.tsx", "shop/src/main.tsx"]
    assert texts == FILES
    assert methods == {zipfile.ZIP_DEFLATED}


def test_the_same_snapshot_gives_the_same_bytes_later(
    blobs: BlobStore, snapshot: WorkspaceRef, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = workspace_zip(blobs, snapshot, "shop")
    monkeypatch.setattr(time, "time", lambda: 2_000_000_000.0)

    assert workspace_zip(blobs, snapshot, "shop") == first


def test_an_empty_workspace_is_an_empty_zip(blobs: BlobStore) -> None:
    with zipfile.ZipFile(io.BytesIO(workspace_zip(blobs, WorkspaceRef(), "shop"))) as archive:
        assert archive.namelist() == []


def test_a_root_outside_the_project_is_refused(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    with pytest.raises(WorkspacePathError):
        workspace_zip(blobs, snapshot, "../shop")


def test_the_listing_gives_paths_and_sizes(blobs: BlobStore, snapshot: WorkspaceRef) -> None:
    assert workspace_listing(blobs, snapshot) == [
        ("package.json", len(FILES["package.json"].encode())),
        ("src/App.tsx", len(FILES["src/App.tsx"].encode())),
        ("src/main.tsx", len(FILES["src/main.tsx"].encode())),
    ]
