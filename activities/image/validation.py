"""The ValidateInput node (seed 004 §2.1, seed 000 §7.1, §8.1): text, mask and image URL limits.

Runs as an activity because it reads the mask from the blob store. A failure is a non-retryable error whose
type is the error code; a long text is truncated and reported as a warning instead.
"""

from temporalio import activity

from activities.blob_refs import ImageRefError, check_image_url
from activities.failures import permanent
from activities.mask_refs import load_paths
from activities.masks import MAX_MASK_BYTES, MaskError, sniff_image_format, validate_paths
from models.agent import ErrorInfo, UserInput
from models.errors import ErrorCode
from models.nodes import ActivityName, ValidatedInput, ValidateRequest
from stores.blob_store import LocalBlobStore

MAX_TEXT_CHARS = 1000


class InputValidator:
    def __init__(self, blobs: LocalBlobStore) -> None:
        self._blobs = blobs

    @activity.defn(name=ActivityName.VALIDATE_INPUT)
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
                    code=ErrorCode.INPUT_TRUNCATED,
                    message=f"输入超过 {MAX_TEXT_CHARS} 字符（共 {len(text)} 字符），已截断为前 {MAX_TEXT_CHARS} 字符",
                    node=ActivityName.VALIDATE_INPUT,
                )
            )
            text = text[:MAX_TEXT_CHARS]
        if mask is not None:
            self._check_mask(user_input)
        return ValidatedInput(user_input=user_input.model_copy(update={"text": text}), warnings=warnings)

    def _check_mask(self, user_input: UserInput) -> None:
        mask = user_input.mask_data
        assert mask is not None
        if mask.image_url is not None:
            try:
                check_image_url(mask.image_url)
            except ImageRefError as err:
                raise permanent(err.code, err.message) from err
        if mask.paths_key is not None:
            self._require_blob(mask.paths_key)
            try:
                validate_paths(load_paths(mask, self._blobs).paths)
            except MaskError as err:
                raise permanent(err.code, err.message) from err
        if mask.blob_key is None:
            if mask.paths_key is None:
                raise permanent(ErrorCode.MASK_INVALID_FORMAT, "蒙版为空：需要 base64 图片或至少一条路径")
            return
        self._require_blob(mask.blob_key)
        if self._blobs.size(mask.blob_key) > MAX_MASK_BYTES:
            raise permanent(ErrorCode.MASK_TOO_LARGE, "蒙版超过 10 MB")
        if sniff_image_format(self._blobs.get(mask.blob_key)) not in ("png", "jpeg"):
            raise permanent(ErrorCode.MASK_INVALID_FORMAT, "蒙版必须是 PNG 或 JPG 图片")

    def _require_blob(self, key: str) -> None:
        if not self._blobs.exists(key):
            raise permanent(ErrorCode.MASK_INVALID_FORMAT, f"蒙版不存在：{key}")
