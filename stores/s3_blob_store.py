"""Blobs in an S3-compatible bucket (`BLOB_STORE=s3`): the `BlobStore` for more than one machine.

The layout is the folder store's: a blob is the object `<kind>/<sha256>.<ext>`, and the record that a principal
owns it an empty object `.owners/<sha256 of the principal>/<key>`. A blob is written once, by a conditional PUT
(`If-None-Match: *`): a second PUT of the same key (the same bytes: keys are content-addressed) is refused by the
server and taken as success (as is any failed PUT after which the object is there: AWS answers 409 to one of two
conditional PUTs in flight at once), so a retried activity or two racing writers leave one object. A PUT is atomic and
never multipart here, so a reader never sees half a blob. A server that ignores the condition overwrites the
object with the same bytes, which is as good.

Through obstore (Rust, `object_store`): `aget`/`aput` are its async calls, awaited on the event loop without a
thread; `get`/`put` and the other blocking methods are its sync calls, for threads and synchronous activities.
Temporal owns retries: the client retries a dropped connection briefly and nothing longer.
"""

from datetime import timedelta
from typing import TYPE_CHECKING

import obstore
from obstore.exceptions import AlreadyExistsError, BaseError
from obstore.store import S3Store

from stores.blob_store import CONTENT_TYPES, BlobNotFoundError, blob_key, is_valid_key, owner_record

if TYPE_CHECKING:
    from obstore.store import ClientConfig, RetryConfig, S3Config

PROBE = ".probe/writable"
"""The empty object `writable` writes: a name no blob key (`[a-z]+/...`) can take."""

_CLIENT: "ClientConfig" = {"connect_timeout": timedelta(seconds=3), "timeout": timedelta(seconds=60)}
_RETRY: "RetryConfig" = {"max_retries": 2, "retry_timeout": timedelta(seconds=5)}
_PROBE_CLIENT: "ClientConfig" = {"connect_timeout": timedelta(seconds=2), "timeout": timedelta(seconds=5)}
_PROBE_RETRY: "RetryConfig" = {"max_retries": 0}


class S3BlobStore:
    """Blobs in one bucket. `config`: obstore's `S3Config` (bucket, endpoint, region, credentials); whatever it
    leaves out comes from the usual AWS environment (`AWS_*` variables, the instance's or container's role)."""

    def __init__(self, config: "S3Config") -> None:
        self._config = config
        allow_http = config.get("endpoint", "").startswith("http://")
        self._store = S3Store(config=config, client_options={**_CLIENT, "allow_http": allow_http}, retry_config=_RETRY)
        self._probe = S3Store(
            config=config, client_options={**_PROBE_CLIENT, "allow_http": allow_http}, retry_config=_PROBE_RETRY
        )

    @property
    def bucket(self) -> str:
        return self._config.get("bucket", "")

    @staticmethod
    def is_valid_key(key: str) -> bool:
        return is_valid_key(key)

    def put(self, data: bytes, *, kind: str, ext: str, owner: str | None = None) -> str:
        key = blob_key(data, kind=kind, ext=ext)
        try:
            obstore.put(self._store, key, data, mode="create", use_multipart=False, attributes=_attributes(ext))
        except AlreadyExistsError:
            pass  # the same bytes are there already
        except BaseError:
            if not self._found(key):  # else a racing writer's PUT of the same bytes won (S3 answers it 409)
                raise
        if owner is not None:
            obstore.put(self._store, owner_record(owner, key), b"", use_multipart=False)
        return key

    async def aput(self, data: bytes, *, kind: str, ext: str, owner: str | None = None) -> str:
        key = blob_key(data, kind=kind, ext=ext)
        try:
            await obstore.put_async(
                self._store, key, data, mode="create", use_multipart=False, attributes=_attributes(ext)
            )
        except AlreadyExistsError:
            pass
        except BaseError:
            if not await self._afound(key):
                raise
        if owner is not None:
            await obstore.put_async(self._store, owner_record(owner, key), b"", use_multipart=False)
        return key

    def get(self, key: str) -> bytes:
        if not is_valid_key(key):
            raise BlobNotFoundError(key)
        try:
            return bytes(obstore.get(self._store, key).bytes())
        except FileNotFoundError as exc:
            raise BlobNotFoundError(key) from exc

    async def aget(self, key: str) -> bytes:
        if not is_valid_key(key):
            raise BlobNotFoundError(key)
        try:
            result = await obstore.get_async(self._store, key)
            return bytes(await result.bytes_async())
        except FileNotFoundError as exc:
            raise BlobNotFoundError(key) from exc

    def owns(self, owner: str, key: str) -> bool:
        return is_valid_key(key) and self._found(owner_record(owner, key)) and self.exists(key)

    def exists(self, key: str) -> bool:
        if not is_valid_key(key):
            raise BlobNotFoundError(key)  # as the folder store: only a blob key names a blob
        return self._found(key)

    def size(self, key: str) -> int:
        if not is_valid_key(key):
            raise BlobNotFoundError(key)
        try:
            return obstore.head(self._store, key)["size"]
        except FileNotFoundError as exc:
            raise BlobNotFoundError(key) from exc

    def writable(self) -> bool:
        """Whether the bucket answers and takes a write now (an empty probe object; no retries, a short timeout)."""
        try:
            self.check()
        except (BaseError, OSError):
            return False
        return True

    def check(self) -> None:
        """Write the probe object; obstore's error when that fails (a missing bucket: `FileNotFoundError`)."""
        obstore.put(self._probe, PROBE, b"", use_multipart=False)

    def _found(self, path: str) -> bool:
        try:
            obstore.head(self._store, path)
        except FileNotFoundError:
            return False
        return True

    async def _afound(self, path: str) -> bool:
        try:
            await obstore.head_async(self._store, path)
        except FileNotFoundError:
            return False
        return True


def _attributes(ext: str) -> dict[str, str]:
    return {"Content-Type": CONTENT_TYPES.get(ext, "application/octet-stream")}
