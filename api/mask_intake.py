"""The claim check at the gateway: a request's mask bytes and paths go to the blob store, the workflow gets keys.

Masks are validated here, once, where their bytes arrive (size, format, path limits), so nothing that must not
enter workflow history gets past and no node reads them back to check again. The base image a mask applies to
becomes a blob key when it is one of this gateway's URLs, so it is read from the store, never fetched. This is
CPU and file work: callers run `store_mask` in a thread.
"""

from api.blob_urls import own_blob_key
from api.errors import ApiError
from imaging.masks import MaskError, decode_mask_base64, sniff_image_format, validate_paths
from models.blobs import ImageRef
from models.image.requests import MaskDataIn
from models.image.state import MaskPaths, MaskRef
from stores.blob_store import LocalBlobStore

MASK_EXTENSIONS = {"png": "png", "jpeg": "jpg"}


def store_mask(mask: MaskDataIn, blobs: LocalBlobStore) -> MaskRef:
    """Validate first, then write: a rejected request leaves nothing behind."""
    try:
        data = decode_mask_base64(mask.base64) if mask.base64 else None
        paths = mask.paths()
        validate_paths(paths)
    except MaskError as err:
        raise ApiError(422, err.code, err.message) from err
    blob_key = None
    if data is not None:
        ext = MASK_EXTENSIONS[sniff_image_format(data) or "png"]
        blob_key = blobs.put(data, kind="masks", ext=ext)
    paths_key = None
    if paths:
        paths_key = blobs.put(MaskPaths(paths=paths).model_dump_json().encode(), kind="paths", ext="json")
    return MaskRef(blob_key=blob_key, paths_key=paths_key, image=_image(mask.image_url))


def _image(url: str | None) -> ImageRef | None:
    if url is None:
        return None
    key = own_blob_key(url)
    return ImageRef(blob_key=key) if key is not None else ImageRef(url=url)
