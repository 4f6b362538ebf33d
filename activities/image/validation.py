"""The ValidateInput node (seed 004 §2.1, seed 000 §7.1, §8.1): text and image URL limits, and the one fetch of an
image the user named by URL.

Masks were validated where their bytes arrived (the gateway's claim check), so nothing is read back here. An
image URL outside this gateway (only where settings allow them) is fetched here, once per run, under the SSRF
guard, and stored: later nodes get its blob key. A failure is a non-retryable error whose type is the error code
and whose message is written for a person; a long text is truncated and reported as a warning instead.
"""

from activities.common.failures import permanent
from imaging.fetch import GuardedImageFetcher, forbidden
from imaging.masks import FILE_EXTENSIONS, sniff_image_format
from models.blobs import ImageRef
from models.errors import ErrorCode, ErrorInfo
from models.image import nodes
from models.image.errors import ImageErrorCode
from models.image.nodes import ValidatedInput, ValidateRequest
from models.image.state import MaskRef
from stores.blob_refs import ImageRefError, check_image_url
from stores.blob_store import BlobStore

MAX_TEXT_CHARS = 1000


class InputValidator:
    """The ValidateInput activity; `fetcher` is None when external images are not allowed."""

    def __init__(self, blobs: BlobStore, fetcher: GuardedImageFetcher | None = None) -> None:
        self._blobs = blobs
        self._fetcher = fetcher

    @nodes.VALIDATE_INPUT.defn
    async def validate_input(self, request: ValidateRequest) -> ValidatedInput:
        user_input = request.user_input
        text = user_input.text.strip()
        mask = user_input.mask_data
        if not text and mask is None:
            raise permanent(ErrorCode.INVALID_INPUT_EMPTY, "请输入内容：文字描述不能为空（Input is empty）")
        warnings: list[ErrorInfo] = []
        if len(text) > MAX_TEXT_CHARS:
            warnings.append(
                ErrorInfo(
                    code=ImageErrorCode.INPUT_TRUNCATED,
                    message=f"输入超过 {MAX_TEXT_CHARS} 字符（共 {len(text)} 字符），已截断为前 {MAX_TEXT_CHARS} 字符",
                    node=nodes.VALIDATE_INPUT.node,
                )
            )
            text = text[:MAX_TEXT_CHARS]
        if mask is not None:
            if mask.blob_key is None and mask.paths_key is None:
                raise permanent(ErrorCode.MASK_INVALID_FORMAT, "蒙版为空：需要 base64 图片或至少一条路径")
            if mask.image is not None and mask.image.url is not None:
                try:
                    mask = await self._stored(mask, mask.image.url)
                except ImageRefError as err:
                    raise permanent(err.code, err.message) from err
        validated = user_input.model_copy(update={"text": text, "mask_data": mask})
        return ValidatedInput(user_input=validated, warnings=warnings)

    async def _stored(self, mask: MaskRef, url: str) -> MaskRef:
        """The mask with its image fetched (guarded) and stored: later nodes read it by key."""
        check_image_url(url)
        if self._fetcher is None:
            raise forbidden()
        data = await self._fetcher.fetch(url)  # a PNG, JPEG or WebP: checked there
        key = await self._blobs.aput(data, kind="fetched", ext=FILE_EXTENSIONS[sniff_image_format(data) or "png"])
        return mask.model_copy(update={"image": ImageRef(blob_key=key)})
