"""The claim check at the gateway: a request's mask bytes and paths go to the blob store, the workflow gets keys.

Only what must not enter workflow history is checked here (mask size, format, path limits); everything else is
the ValidateInput node's job, so its errors stream like any other run's.
"""

from activities.masks import MaskError, decode_mask_base64, sniff_image_format, validate_paths
from api.errors import ApiError
from api.schemas import MaskDataIn
from models.agent import MaskPaths, MaskRef
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
    return MaskRef(blob_key=blob_key, paths_key=paths_key, image_url=mask.image_url)
