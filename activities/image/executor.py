"""The Executor node (seed 000 §3.3, 004 §4.3): text_to_image, inpainting and parameter_adjustment.

Loads the base image and mask by reference, asks the image provider for a PNG, stores it in the blob store and
returns its key: images never travel through workflow history. Decoding and mask building run in a thread.
`image_request` and `stored_result` are shared with the hosted-task nodes (`activities.image.hosted`), which
submit the same request to a task-based API and store its image the same way.
"""

import asyncio

from activities.common.failures import permanent
from activities.common.provider_failures import provider_failure
from activities.image.mask_refs import load_mask_png
from imaging.image_provider import ImageProvider, ImageRequest
from imaging.masks import MaskError
from imaging.providers.errors import ImageProviderError
from imaging.rendering import decode_image
from models.blobs import blob_ref
from models.errors import ErrorCode
from models.image import hosted, nodes
from models.image.errors import ImageErrorCode
from models.image.nodes import ExecutorRequest
from models.image.state import TASK_TYPE_FOR_ACTION, ExecutionResult, ImageParameters, MaskRef, TaskType
from stores.blob_refs import BlobResolver, ImageRefError
from stores.blob_store import BlobStore


class ImageExecutor:
    """The Executor activity over an image provider."""

    def __init__(self, provider: ImageProvider, resolver: BlobResolver) -> None:
        self._provider = provider
        self._resolver = resolver

    @nodes.EXECUTOR.defn
    async def execute(self, request: ExecutorRequest) -> ExecutionResult:
        asked = await image_request(request, self._resolver)
        png = await self._provider.generate(asked)
        size = (asked.width, asked.height)
        return await stored_result(png, request, asked.task_type, size, self._provider.name, self._resolver.blobs)


class DirectImageExecutor(ImageExecutor):
    """The Executor over a synchronous hosted API (OpenAI Images), registered as `image.direct_executor` so the
    workflow can give it the timeout one generation needs (`policies.IMAGE_HOSTED_EXECUTOR`)."""

    @hosted.DIRECT_EXECUTOR.defn
    async def execute_direct(self, request: ExecutorRequest) -> ExecutionResult:
        try:
            return await self.execute(request)
        except ImageProviderError as err:
            raise provider_failure(err) from err


async def image_request(request: ExecutorRequest, resolver: BlobResolver) -> ImageRequest:
    """What a provider is asked for: the intent's task with its base image and mask loaded (inpainting keeps the
    base image's size). Bad references and masks are permanent failures with their own codes."""
    task_type = TASK_TYPE_FOR_ACTION.get(request.intent.action)
    if task_type is None:
        raise permanent(ErrorCode.EXECUTION_FAILED, f"无法执行的意图：{request.intent.action}")
    base_image: bytes | None = None
    mask: bytes | None = None
    params = request.parameters
    try:
        if request.base_image is not None:
            base_image = await resolver.fetch(request.base_image)
        if task_type == "inpainting":
            if base_image is None or request.mask is None:
                raise permanent(ImageErrorCode.MASK_REQUIRED, "局部重绘需要原图和蒙版")
            params, mask = await asyncio.to_thread(_fit_to_base, params, base_image, request.mask, resolver.blobs)
    except (ImageRefError, MaskError) as err:
        raise permanent(err.code, err.message) from err
    except ValueError as err:
        raise permanent(ErrorCode.IMAGE_NOT_FOUND, f"原图无法解码：{err}") from err
    return ImageRequest(
        task_type=task_type,
        prompt=request.prompt,
        seed=request.seed,
        width=params.width,
        height=params.height,
        style_strength=params.style_strength,
        base_image=base_image,
        mask=mask,
        model=request.preferred_model,
    )


async def stored_result(
    png: bytes,
    request: ExecutorRequest,
    task_type: TaskType,
    size: tuple[int, int],
    provider: str,
    blobs: BlobStore,
) -> ExecutionResult:
    """The image in the blob store, as the Executor's result (`size`: the image's width and height)."""
    key = await blobs.aput(png, kind="images", ext="png", owner=request.owner or None)
    return ExecutionResult(
        image_url=blob_ref(key),
        blob_key=key,
        task_type=task_type,
        prompt=request.prompt,
        seed=request.seed,
        width=size[0],
        height=size[1],
        style_strength=request.parameters.style_strength,
        metadata={
            "provider": provider,
            "preferredModel": request.preferred_model,
            "baseImageUrl": request.base_image.describe() if request.base_image else None,
            "maskKey": request.mask.blob_key if request.mask else None,
        },
    )


def _fit_to_base(
    params: ImageParameters, base_image: bytes, mask: MaskRef, blobs: BlobStore
) -> tuple[ImageParameters, bytes]:
    """Inpainting keeps the base image's size; the mask is drawn at that size."""
    width, height = decode_image(base_image).size
    return params.model_copy(update={"width": width, "height": height}), load_mask_png(mask, blobs, (width, height))
