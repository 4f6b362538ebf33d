"""The blob store: masks, images and generated files live here, workflows carry only their keys (claim check).

The embedded default is a folder under `DATA_DIR/blobs`; keys are content-addressed
(`<kind>/<sha256>.<ext>`), so writing the same bytes twice is idempotent and a retried activity never
leaves a half-written or duplicate blob. S3-compatible storage replaces it at scale behind the same methods.
"""

import asyncio
import hashlib
import os
import re
import tempfile
from pathlib import Path

from models.blobs import KEY_PATTERN

_KEY = re.compile(rf"^{KEY_PATTERN}$")

CONTENT_TYPES = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp", "json": "application/json"}


class BlobNotFoundError(KeyError):
    """No blob is stored under this key."""


class LocalBlobStore:
    """Blobs in a folder: `get`/`put` block (for threads and sync code), `aget`/`aput` run them in a thread."""

    def __init__(self, root: Path) -> None:
        self._root = root

    @staticmethod
    def is_valid_key(key: str) -> bool:
        return bool(_KEY.match(key))

    def put(self, data: bytes, *, kind: str, ext: str) -> str:
        key = f"{kind}/{hashlib.sha256(data).hexdigest()}.{ext}"
        path = self._path(key)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Write to a temporary file and rename, so a crash never leaves a partial blob under the key.
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        return key

    def get(self, key: str) -> bytes:
        path = self._path(key)
        try:
            return path.read_bytes()
        except FileNotFoundError as exc:
            raise BlobNotFoundError(key) from exc

    async def aput(self, data: bytes, *, kind: str, ext: str) -> str:
        return await asyncio.to_thread(self.put, data, kind=kind, ext=ext)

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

    def _path(self, key: str) -> Path:
        if not self.is_valid_key(key):
            raise BlobNotFoundError(key)
        return self._root / key
