"""Turns an `ImageRef` into bytes: the claim-check boundary for images activities start from.

An image this project stored is read from the blob store by key; any other http(s) URL is downloaded with a size
limit. Workflows carry only keys and URLs, never bytes.
"""

from urllib.parse import urlsplit

import httpx

from models.blobs import ImageRef
from models.errors import ErrorCode
from stores.blob_store import BlobNotFoundError, LocalBlobStore

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
    """Reads the images activities start from: stored blobs by key, other images by download."""

    def __init__(self, blobs: LocalBlobStore, http: httpx.AsyncClient | None = None) -> None:
        self.blobs = blobs
        self._http = http

    async def fetch(self, ref: ImageRef) -> bytes:
        if ref.blob_key is not None:
            try:
                return await self.blobs.aget(ref.blob_key)
            except BlobNotFoundError as exc:
                raise ImageRefError(ErrorCode.IMAGE_NOT_FOUND, f"图片不存在：{ref.blob_key}") from exc
        if ref.url is None:
            raise ImageRefError(ErrorCode.IMAGE_NOT_FOUND, "没有给出图片")
        check_image_url(ref.url)
        return await self._download(ref.url)

    async def _download(self, url: str) -> bytes:
        if self._http is None:
            raise ImageRefError(ErrorCode.IMAGE_NOT_FOUND, f"无法下载外部图片：{url}")
        async with self._http.stream("GET", url) as response:
            if response.status_code != 200:
                raise ImageRefError(ErrorCode.IMAGE_NOT_FOUND, f"下载图片失败（HTTP {response.status_code}）：{url}")
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > MAX_IMAGE_BYTES:
                    raise ImageRefError(ErrorCode.IMAGE_URL_INVALID, "图片超过 20 MB")
            return bytes(data)
