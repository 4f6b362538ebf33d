"""Blob download and upload: generated images are served here, and a user's own image can be uploaded as a base.

Uploads need the caller's key (`router`) and are stored for the caller (its ownership record); downloads need
none but the URL's signature (`downloads`, see `api.blob_urls`), so an image URL works in an `<img src>` and
reaches only the principal it was issued to, while it has not expired, and only if that principal owns the blob.
"""

import asyncio
import time
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from api.blob_urls import url_reader
from api.bodies import StrictJsonRoute
from api.deps import Blobs, Links
from api.errors import ApiError
from api.schemas import BlobView
from imaging.masks import FILE_EXTENSIONS, sniff_image_format
from imaging.rendering import MAX_SIDE, ImageDecodeError, ImageTooLargeError, decode_image
from models.errors import ErrorCode
from stores.blob_store import CONTENT_TYPES, BlobNotFoundError

router = APIRouter(tags=["blobs"], route_class=StrictJsonRoute)
downloads = APIRouter(tags=["blobs"], route_class=StrictJsonRoute)


@downloads.get("/v1/blobs/{key:path}", response_class=Response, responses={200: {"content": {"image/png": {}}}})
async def get_blob(
    key: str,
    request: Request,
    blobs: Blobs,
    owner: Annotated[str | None, Query(max_length=64)] = None,
    exp: Annotated[str | None, Query(max_length=16)] = None,
    sig: Annotated[str | None, Query(max_length=64)] = None,
) -> Response:
    """A blob by the URL the gateway issued for it (with API keys, signed for its principal until it expires:
    `owner`, `exp`, `sig`), of a principal that owns it. Any other request (an expired URL too) gets the 404 of a
    blob that does not exist."""
    missing = ApiError(404, ErrorCode.BLOB_NOT_FOUND, f"没有这个文件：{key}")
    now = time.time()
    secret = request.app.state.blob_secret
    reader = url_reader(secret, key, owner, exp, sig, now)
    if reader is None or not await asyncio.to_thread(blobs.owns, reader, key):
        raise missing
    try:
        data = await blobs.aget(key)
    except BlobNotFoundError as err:
        raise missing from err
    content_type = CONTENT_TYPES.get(key.rsplit(".", 1)[-1], "application/octet-stream")
    if secret is None:
        cache = "public, max-age=31536000, immutable"
    else:  # the browser keeps it no longer than the URL works
        cache = f"private, max-age={max(int(exp or 0) - int(now), 0)}"
    return Response(data, media_type=content_type, headers={"Cache-Control": cache})


@router.post("/v1/blobs", response_model=BlobView, status_code=201)
async def upload_image(request: Request, blobs: Blobs, links: Links) -> BlobView:
    """Upload a PNG, JPG or WebP (raw body, up to 20 MB, at most 4096 pixels a side); its URL works as
    `maskData.imageUrl`. The image is decoded in full before it is stored: nothing else is kept."""
    data = await request.body()  # at most UPLOAD_BYTES: the body limit stops it while it arrives
    kind = sniff_image_format(data)
    if kind is None:
        raise ApiError(415, ErrorCode.IMAGE_INVALID_FORMAT, "只支持 PNG、JPG 或 WebP 图片")
    try:
        await asyncio.to_thread(decode_image, data)
    except ImageTooLargeError as err:
        raise ApiError(413, ErrorCode.INPUT_TOO_LARGE, f"图片过大：每边最多 {MAX_SIDE} 像素") from err
    except ImageDecodeError as err:
        raise ApiError(415, ErrorCode.IMAGE_INVALID_FORMAT, "图片无法解码（只支持完整的 PNG、JPG 或 WebP）") from err
    ext = FILE_EXTENSIONS[kind]
    key = await blobs.aput(data, kind="uploads", ext=ext, owner=links.principal)
    return BlobView(key=key, url=links.url(key), content_type=CONTENT_TYPES[ext], size=len(data))
