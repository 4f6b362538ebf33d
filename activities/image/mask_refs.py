"""Resolves a `MaskRef` (a mask image and/or drawn paths, both in the blob store) into one binary mask PNG."""

from PIL import Image

from imaging.masks import combine_masks, mask_from_image, mask_from_paths
from imaging.rendering import encode_png
from models.image.state import MaskRef
from models.paths import PackedPath, load_paths_json
from stores.blob_store import BlobStore


def load_paths(ref: MaskRef, blobs: BlobStore) -> list[PackedPath]:
    return load_paths_json(blobs.get(ref.paths_key)) if ref.paths_key is not None else []


def load_mask_png(ref: MaskRef, blobs: BlobStore, size: tuple[int, int]) -> bytes:
    masks: list[Image.Image] = []
    if ref.blob_key is not None:
        masks.append(mask_from_image(blobs.get(ref.blob_key), size))
    paths = load_paths(ref, blobs)
    if paths:
        masks.append(mask_from_paths(paths, size))
    if not masks:
        raise ValueError("a mask needs an image or at least one path")
    mask = masks[0]
    for other in masks[1:]:
        mask = combine_masks(mask, other)
    return encode_png(mask)
