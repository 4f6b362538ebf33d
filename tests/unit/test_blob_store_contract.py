"""The blob store's contract, the same tests over every backend: the folder under `DATA_DIR` and an S3 bucket on a
real S3 API server (moto on loopback, `tests/s3_server.py`). Each backend comes with a listing of what it holds,
read beside the store (the folder's files; the bucket's objects through a client of its own), so a test can see
that a write left one object."""

import asyncio
import pickle
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import obstore
import pytest
from obstore.store import S3Store

from models.settings import Settings
from stores.blob_backends import open_blob_store, s3_config
from stores.blob_store import OWNERS, BlobNotFoundError, BlobStore, LocalBlobStore
from stores.s3_blob_store import PROBE, S3BlobStore

PNG = b"\x89PNG\r\n\x1a\n not really a png, but bytes"
INVALID_KEYS = [
    "../secret",
    "masks/../../etc/passwd",
    "masks/abc.png",
    f"{OWNERS}/{'0' * 32}/masks/{'a' * 64}.png",
    f"Masks/{'a' * 64}.png",
    "",
]
MISSING = f"masks/{'a' * 64}.png"
"""A valid key no test writes."""


@dataclass
class Backend:
    """A store under test and what it holds: every path, blobs and ownership records (without the probe)."""

    store: BlobStore
    listing: Callable[[], list[str]]


def folder_backend(tmp_path: Path) -> Backend:
    root = tmp_path / "data" / "blobs"
    store = open_blob_store(Settings(data_dir=tmp_path / "data", _env_file=None))
    assert isinstance(store, LocalBlobStore)

    def listing() -> list[str]:
        return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())

    return Backend(store, listing)


def s3_backend(fields: dict[str, Any]) -> Backend:
    settings = Settings(_env_file=None, **fields)
    store = open_blob_store(settings)
    assert isinstance(store, S3BlobStore)
    reader = S3Store(config=s3_config(settings), client_options={"allow_http": True})

    def listing() -> list[str]:
        paths = [meta["path"] for batch in obstore.list(reader) for meta in batch]
        return sorted(path for path in paths if path != PROBE)

    return Backend(store, listing)


@pytest.fixture(params=["folder", "s3"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "folder":
        return folder_backend(tmp_path)
    return s3_backend(request.getfixturevalue("s3_blob_settings"))


def test_put_and_get_round_trip_under_a_content_address(backend: Backend) -> None:
    store = backend.store
    key = store.put(PNG, kind="uploads", ext="png")
    assert key.startswith("uploads/") and key.endswith(".png") and store.is_valid_key(key)
    assert store.get(key) == PNG
    assert store.exists(key)
    assert store.size(key) == len(PNG)
    assert backend.listing() == [key]


def test_the_same_bytes_twice_are_one_blob(backend: Backend) -> None:
    store = backend.store
    first = store.put(PNG, kind="images", ext="png")
    assert store.put(PNG, kind="images", ext="png") == first
    other = store.put(PNG + b"!", kind="images", ext="png")
    assert other != first
    assert backend.listing() == sorted([first, other])
    assert store.get(first) == PNG


def test_an_owner_record_per_principal(backend: Backend) -> None:
    store = backend.store
    key = store.put(PNG, kind="masks", ext="png", owner="alice")
    assert store.owns("alice", key)
    assert not store.owns("bob", key)
    assert store.put(PNG, kind="masks", ext="png", owner="bob") == key
    assert store.owns("alice", key) and store.owns("bob", key)
    records = [path for path in backend.listing() if path.startswith(f"{OWNERS}/")]
    assert len(records) == 2 and all(path.endswith(key) for path in records)


def test_a_blob_stored_for_nobody_is_owned_by_no_one(backend: Backend) -> None:
    key = backend.store.put(PNG, kind="evidence", ext="json")
    assert not backend.store.owns("alice", key)
    assert backend.listing() == [key]


def test_owns_is_false_for_a_missing_blob_or_an_invalid_key(backend: Backend) -> None:
    store = backend.store
    assert not store.owns("alice", MISSING)
    for key in INVALID_KEYS:
        assert not store.owns("alice", key)


def test_an_empty_owner_is_refused(backend: Backend) -> None:
    with pytest.raises(ValueError, match="owner"):
        backend.store.put(PNG, kind="masks", ext="png", owner="")


@pytest.mark.parametrize("key", INVALID_KEYS)
async def test_invalid_keys_name_no_blob(backend: Backend, key: str) -> None:
    store = backend.store
    assert not store.is_valid_key(key)
    with pytest.raises(BlobNotFoundError):
        store.exists(key)
    with pytest.raises(BlobNotFoundError):
        store.get(key)
    with pytest.raises(BlobNotFoundError):
        await store.aget(key)
    with pytest.raises(BlobNotFoundError):
        store.size(key)


async def test_a_missing_key_is_blob_not_found(backend: Backend) -> None:
    store = backend.store
    assert not store.exists(MISSING)
    with pytest.raises(BlobNotFoundError):
        store.get(MISSING)
    with pytest.raises(BlobNotFoundError):
        await store.aget(MISSING)
    with pytest.raises(BlobNotFoundError):
        store.size(MISSING)


async def test_the_async_and_sync_paths_read_each_others_writes(backend: Backend) -> None:
    store = backend.store
    written = await store.aput(PNG, kind="images", ext="png", owner="alice")
    assert store.get(written) == PNG and store.owns("alice", written)
    assert await store.aput(PNG, kind="images", ext="png", owner="alice") == written
    other = store.put(b"{}", kind="documents", ext="json")
    assert await store.aget(other) == b"{}"
    assert len([path for path in backend.listing() if not path.startswith(OWNERS)]) == 2


def test_a_concurrent_put_of_the_same_bytes_leaves_one_object(backend: Backend) -> None:
    store = backend.store
    data = PNG * 1000

    def put(_: int) -> str:
        return store.put(data, kind="images", ext="png", owner="alice")

    with ThreadPoolExecutor(max_workers=8) as pool:
        keys = set(pool.map(put, range(16)))
    assert len(keys) == 1
    key = keys.pop()
    assert store.get(key) == data
    assert [path for path in backend.listing() if not path.startswith(OWNERS)] == [key]


async def test_concurrent_async_puts_of_the_same_bytes_leave_one_object(backend: Backend) -> None:
    keys = await asyncio.gather(*(backend.store.aput(PNG, kind="images", ext="png") for _ in range(8)))
    assert len(set(keys)) == 1
    assert backend.listing() == [keys[0]]


def test_the_store_is_writable(backend: Backend) -> None:
    assert backend.store.writable()


def test_a_pickled_store_reads_the_same_blobs(backend: Backend) -> None:
    """The gateway hands its store to the intake process (`api.intake`), pickled."""
    key = backend.store.put(PNG, kind="masks", ext="png", owner="alice")
    copy: BlobStore = pickle.loads(pickle.dumps(backend.store))
    assert copy.get(key) == PNG and copy.owns("alice", key)
