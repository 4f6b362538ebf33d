"""The claim check at the gateway: a request's mask bytes and paths go to the blob store, the workflow gets keys.

Masks are validated here, once, where their bytes arrive (size, format, path limits), so nothing that must not
enter workflow history gets past and no node reads them back to check again. The base image a mask applies to
becomes a blob key when it is one of this gateway's URLs, so it is read from the store, never fetched. This is
CPU and file work: callers run `store_mask` in a thread.
"""

from api.blob_urls import BlobLinks, blob_route_key
from api.errors import ApiError
from imaging.fetch import FORBIDDEN_MESSAGE
from imaging.masks import FILE_EXTENSIONS, MaskError, decode_mask_base64, sniff_image_format, validate_paths
from models.blobs import ImageRef
from models.errors import ErrorCode
from models.image.requests import MaskDataIn
from models.image.state import MaskRef
from models.paths import dump_paths
from stores.blob_refs import ImageRefError, check_image_url
from stores.blob_store import BlobStore


def store_mask(mask: MaskDataIn, blobs: BlobStore, links: BlobLinks, *, allow_external_images: bool) -> MaskRef:
    """Validate first, then write: a rejected request leaves nothing behind."""
    image = _image(mask.image_url, links, allow_external_images)
    try:
        data = decode_mask_base64(mask.base64) if mask.base64 else None
        paths = mask.paths()
        validate_paths(paths)
    except MaskError as err:
        raise ApiError(422, err.code, err.message) from err
    blob_key = None
    if data is not None:
        ext = FILE_EXTENSIONS[sniff_image_format(data) or "png"]
        blob_key = blobs.put(data, kind="masks", ext=ext, owner=links.principal)
    paths_key = None
    if paths:
        paths_key = blobs.put(dump_paths(paths), kind="paths", ext="json", owner=links.principal)
    return MaskRef(blob_key=blob_key, paths_key=paths_key, image=image)


def _image(url: str | None, links: BlobLinks, allow_external_images: bool) -> ImageRef | None:
    """A URL this gateway issued to the caller for a blob it owns becomes its blob key (any other URL of the blob
    route is refused: another principal's, a forged one, one for a blob the caller does not own);
    any other http(s) URL is kept for the run to fetch (once, guarded) where settings allow external images, and
    refused otherwise."""
    if url is None:
        return None
    key = links.own_key(url)
    if key is not None:
        return ImageRef(blob_key=key)
    if blob_route_key(url) is not None:
        raise ApiError(422, ErrorCode.IMAGE_URL_FORBIDDEN, FORBIDDEN_MESSAGE)
    try:
        check_image_url(url)
    except ImageRefError as err:
        raise ApiError(422, err.code, err.message) from err
    if not allow_external_images:
        raise ApiError(422, ErrorCode.IMAGE_URL_FORBIDDEN, FORBIDDEN_MESSAGE)
    return ImageRef(url=url)
