"""Turns image URLs into bytes and blob keys into URLs: the claim-check boundary for images.

A URL the gateway issued (`…/v1/blobs/<key>`) resolves straight to the blob store; any other http(s) URL is
downloaded with a size limit. Workflows only ever see keys and URLs.
"""

from urllib.parse import urlsplit

import httpx

from models.errors import ErrorCode
from stores.blob_store import BlobNotFoundError, LocalBlobStore

BLOB_ROUTE = "/v1/blobs/"
MAX_IMAGE_BYTES = 20 * 1024 * 1024


def blob_url(base_url: str, key: str) -> str:
    """The URL the gateway serves a blob under."""
    return f"{base_url.rstrip('/')}{BLOB_ROUTE}{key}"


class ImageRefError(ValueError):
    """An image URL that cannot be used; `code` says why."""

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
    def __init__(self, blobs: LocalBlobStore, base_url: str, http: httpx.AsyncClient | None = None) -> None:
        self.blobs = blobs
        self._base_url = base_url.rstrip("/")
        self._http = http

    def url_for(self, key: str) -> str:
        return blob_url(self._base_url, key)

    def key_for(self, url: str) -> str | None:
        """The blob key of a URL this gateway issued (any host: it may be reached under several names)."""
        path = urlsplit(url).path
        if not path.startswith(BLOB_ROUTE):
            return None
        key = path[len(BLOB_ROUTE) :]
        return key if self.blobs.is_valid_key(key) else None

    async def fetch(self, url: str) -> bytes:
        check_image_url(url)
        key = self.key_for(url)
        if key is not None:
            try:
                return self.blobs.get(key)
            except BlobNotFoundError as exc:
                raise ImageRefError(ErrorCode.IMAGE_NOT_FOUND, f"图片不存在：{url}") from exc
        return await self._download(url)

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
