"""Turns an `ImageRef` into bytes: the claim-check boundary for images activities start from.

Activities read images from the blob store by key only. An image a user named by URL was fetched once, by the
run's ValidateInput (`imaging.fetch`), and stored; a URL that still reaches here is refused.
Workflows carry only keys, never bytes. The gateway shares the rules: it refuses an image URL that is not http(s)
(`check_image_url`) before a run starts, and `MAX_IMAGE_BYTES` caps both an upload and a fetched image.
"""

from urllib.parse import urlsplit

from models.blobs import ImageRef
from models.errors import ErrorCode
from stores.blob_store import BlobNotFoundError, BlobStore

MAX_IMAGE_BYTES = 20 * 1024 * 1024


class ImageRefError(ValueError):
    """An image reference that cannot be used; `code` says why."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_image_url(url: str) -> None:
    """Seed 000 §8.1: only http:// and https:// image URLs are accepted."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ImageRefError(
            ErrorCode.IMAGE_URL_INVALID,
            f"图片 URL 仅支持 http:// 或 https://（got {url[:80]!r}）",
        )


class BlobResolver:
    """Reads the images activities start from, stored blobs by key."""

    def __init__(self, blobs: BlobStore) -> None:
        self.blobs = blobs

    async def fetch(self, ref: ImageRef) -> bytes:
        if ref.blob_key is None:
            raise ImageRefError(ErrorCode.IMAGE_URL_FORBIDDEN, "图片须先存入本服务（image not stored here）")
        try:
            return await self.blobs.aget(ref.blob_key)
        except BlobNotFoundError as exc:
            raise ImageRefError(ErrorCode.IMAGE_NOT_FOUND, f"图片不存在：{ref.blob_key}") from exc
