"""Fetching an image a user named by URL without letting the URL reach inside (the SSRF guard).

Only when the settings allow external images (`ALLOW_EXTERNAL_IMAGES`); the gateway refuses such URLs otherwise.
The host is resolved once and every address it resolves to must be a global one (not loopback, private,
link-local, multicast, reserved, shared or unspecified, also when written as a decimal, hex or IPv4-mapped
address); the connection then goes to that vetted address itself, with the URL's host name kept for the `Host`
header and TLS, so a second DNS answer cannot point it elsewhere. Redirects are not followed, the body is capped,
the whole fetch has a deadline, and the bytes must decode as a PNG, JPEG or WebP within the pixel limit.

Every refusal is `IMAGE_URL_FORBIDDEN` and every other failure `IMAGE_FETCH_FAILED`, with messages that say
nothing about the target (no status, size, address or connection error): the error events go back to the caller.
"""

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit, urlunsplit

import httpx

from imaging.masks import sniff_image_format
from imaging.rendering import ImageDecodeError, ImageTooLargeError, decode_image
from models.errors import ErrorCode
from stores.blob_refs import ImageRefError

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Host and port → the addresses it resolves to."""

FORBIDDEN_MESSAGE = "不允许使用这个图片地址（image URL not allowed）"
FAILED_MESSAGE = "无法获取这张图片（image could not be fetched）"


def forbidden() -> ImageRefError:
    return ImageRefError(ErrorCode.IMAGE_URL_FORBIDDEN, FORBIDDEN_MESSAGE)


def failed() -> ImageRefError:
    return ImageRefError(ErrorCode.IMAGE_FETCH_FAILED, FAILED_MESSAGE)


def is_public_address(address: str) -> bool:
    """Whether a connection to this address could only reach the public internet."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def system_resolver(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class GuardedImageFetcher:
    """Downloads user-named images under the rules above."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        max_bytes: int,
        timeout_seconds: float,
        resolve: Resolver = system_resolver,
    ) -> None:
        self._http = http
        self._max_bytes = max_bytes
        self._timeout = timeout_seconds
        self._resolve = resolve

    async def fetch(self, url: str) -> bytes:
        parts = urlsplit(url)
        host = parts.hostname
        if parts.scheme not in ("http", "https") or not host or parts.username or parts.password:
            raise forbidden()
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            addresses = await self._resolve(host, port)
        except (OSError, ValueError):
            raise forbidden() from None
        if not addresses or not all(is_public_address(a) for a in addresses):
            raise forbidden()
        pinned = addresses[0]
        netloc = f"[{pinned}]:{port}" if ":" in pinned else f"{pinned}:{port}"
        target = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
        headers = {"Host": host if parts.port is None else f"{host}:{port}", "Accept": "image/*"}
        extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
        try:
            async with asyncio.timeout(self._timeout):
                data = await self._download(target, headers, extensions)
        except (httpx.HTTPError, TimeoutError):
            raise failed() from None
        await asyncio.to_thread(_check_image, data)
        return data

    async def _download(self, target: str, headers: dict[str, str], extensions: dict[str, str]) -> bytes:
        request = self._http.build_request("GET", target, headers=headers, extensions=extensions)
        response = await self._http.send(request, stream=True, follow_redirects=False)
        try:
            if response.status_code != 200:
                raise failed()
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > self._max_bytes:
                    raise failed()
            return bytes(data)
        finally:
            await response.aclose()


def _check_image(data: bytes) -> None:
    if sniff_image_format(data) is None:
        raise failed()
    try:
        decode_image(data)
    except (ImageDecodeError, ImageTooLargeError):
        raise failed() from None
