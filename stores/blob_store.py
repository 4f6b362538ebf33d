"""The blob store: masks, images and generated files live here, workflows carry only their keys (claim check).

`BlobStore` is what every caller holds; `stores.blob_backends.open_blob_store` picks the one the settings name.
The embedded default, `LocalBlobStore`, is a folder under `DATA_DIR/blobs`; S3-compatible storage
(`stores.s3_blob_store`) replaces it at scale behind the same methods. Keys are content-addressed
(`<kind>/<sha256>.<ext>`), so writing the same bytes twice is idempotent and a retried activity never
leaves a half-written or duplicate blob.

Keys are not secret (they show in logs, the Temporal UI, manifests), so a key alone grants nothing: a blob stored
for a principal (`put(..., owner=...)`: an upload, a mask, a generated image) gets an ownership record, an empty
file `.owners/<sha256 of the principal>/<key>`, and the gateway shows, serves or accepts a blob only for a
principal that `owns` it. The same bytes stored for two principals are one blob with two records. A blob stored
for nobody (workspace files, evidence, documents) is owned by no one: only the code that holds its run reads it.
The same layout holds on every backend: keys, and records under `.owners/`.
"""

import asyncio
import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Protocol

from models.blobs import KEY_PATTERN

_KEY = re.compile(rf"^{KEY_PATTERN}$")
OWNERS = ".owners"
"""The records' folder: a name no key's kind (`[a-z]+`) can take."""

CONTENT_TYPES = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp", "json": "application/json"}


class BlobNotFoundError(KeyError):
    """No blob is stored under this key."""


def is_valid_key(key: str) -> bool:
    """Whether `key` is a blob key (`<kind>/<sha256>.<ext>`): nothing else names a blob on any backend."""
    return bool(_KEY.match(key))


def blob_key(data: bytes, *, kind: str, ext: str) -> str:
    """The key `data` is stored under."""
    return f"{kind}/{hashlib.sha256(data).hexdigest()}.{ext}"


def owner_record(owner: str, key: str) -> str:
    """Where the record that `owner` owns the blob `key` lives, relative to the store's root."""
    if not owner:
        raise ValueError("a blob's owner is a principal's name, not empty")
    return f"{OWNERS}/{hashlib.sha256(owner.encode()).hexdigest()[:32]}/{key}"


class BlobStore(Protocol):
    """A blob store: `get`/`put`/`owns`/`exists`/`size`/`writable` block (call them from threads and sync code),
    `aget`/`aput` do not block the event loop. A missing key raises `BlobNotFoundError` (`exists`: False), and so
    does anything that is no blob key (`exists` too; `owns`: False)."""

    def is_valid_key(self, key: str) -> bool: ...

    def put(self, data: bytes, *, kind: str, ext: str, owner: str | None = None) -> str:
        """Store `data` (once: the same bytes again are a no-op); its key. `owner`: the principal it is stored
        for, recorded after the blob is written."""
        ...

    async def aput(self, data: bytes, *, kind: str, ext: str, owner: str | None = None) -> str: ...

    def get(self, key: str) -> bytes: ...

    async def aget(self, key: str) -> bytes: ...

    def owns(self, owner: str, key: str) -> bool:
        """Whether the blob `key` exists and was stored for `owner`."""
        ...

    def exists(self, key: str) -> bool: ...

    def size(self, key: str) -> int: ...

    def writable(self) -> bool:
        """Whether new blobs can be written here now."""
        ...


class LocalBlobStore:
    """Blobs in a folder: `get`/`put` block (for threads and sync code), `aget`/`aput` run them in a thread."""

    def __init__(self, root: Path) -> None:
        self._root = root

    @staticmethod
    def is_valid_key(key: str) -> bool:
        return is_valid_key(key)

    def put(self, data: bytes, *, kind: str, ext: str, owner: str | None = None) -> str:
        """Store `data`; its key. `owner`: the principal it is stored for, recorded after the blob is written."""
        key = blob_key(data, kind=kind, ext=ext)
        path = self._path(key)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Write to a temporary file and rename, so a crash never leaves a partial blob under the key.
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        if owner is not None:
            record = self._record(owner, key)
            record.parent.mkdir(parents=True, exist_ok=True)
            record.touch()
        return key

    def owns(self, owner: str, key: str) -> bool:
        """Whether the blob `key` exists and was stored for `owner`."""
        return is_valid_key(key) and self._record(owner, key).is_file() and self.exists(key)

    def get(self, key: str) -> bytes:
        path = self._path(key)
        try:
            return path.read_bytes()
        except FileNotFoundError as exc:
            raise BlobNotFoundError(key) from exc

    async def aput(self, data: bytes, *, kind: str, ext: str, owner: str | None = None) -> str:
        return await asyncio.to_thread(self.put, data, kind=kind, ext=ext, owner=owner)

    async def aget(self, key: str) -> bytes:
        return await asyncio.to_thread(self.get, key)

    def writable(self) -> bool:
        """Whether new blobs can be written here now (its folder exists or can be made, and accepts files)."""
        try:
            self._root.mkdir(parents=True, exist_ok=True)
        except OSError:
            return False
        return os.access(self._root, os.W_OK)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def size(self, key: str) -> int:
        try:
            return self._path(key).stat().st_size
        except FileNotFoundError as exc:
            raise BlobNotFoundError(key) from exc

    def _record(self, owner: str, key: str) -> Path:
        return self._root / owner_record(owner, key)

    def _path(self, key: str) -> Path:
        if not is_valid_key(key):
            raise BlobNotFoundError(key)
        return self._root / key
