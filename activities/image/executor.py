"""The Executor node (seed 000 §3.3, 004 §4.3): text_to_image, inpainting and parameter_adjustment.

Loads the base image and mask by reference, asks the image provider for a PNG, stores it in the blob store and
returns its key and URL: images never travel through workflow history.
"""

from temporalio import activity

from activities.blob_refs import BlobResolver, ImageRefError
from activities.failures import permanent
from activities.image_provider import ImageProvider, ImageRequest
from activities.mask_refs import load_mask_png
from activities.masks import MaskError
from activities.rendering import decode_image
from models.agent import TASK_TYPE_FOR_ACTION, ExecutionResult
from models.errors import ErrorCode
from models.nodes import ActivityName, ExecutorRequest


class ImageExecutor:
    def __init__(self, provider: ImageProvider, resolver: BlobResolver) -> None:
        self._provider = provider
        self._resolver = resolver

    @activity.defn(name=ActivityName.EXECUTOR)
    async def execute(self, request: ExecutorRequest) -> ExecutionResult:
        task_type = TASK_TYPE_FOR_ACTION.get(request.intent.action)
        if task_type is None:
            raise permanent(ErrorCode.EXECUTION_FAILED, f"无法执行的意图：{request.intent.action}")
        base_image: bytes | None = None
        mask: bytes | None = None
        params = request.parameters
        try:
            if request.base_image_url is not None:
                base_image = await self._resolver.fetch(request.base_image_url)
            if task_type == "inpainting":
                if base_image is None or request.mask is None:
                    raise permanent(ErrorCode.MASK_REQUIRED, "局部重绘需要原图和蒙版")
                width, height = decode_image(base_image).size
                params = params.model_copy(update={"width": width, "height": height})
                mask = load_mask_png(request.mask, self._resolver.blobs, (width, height))
        except (ImageRefError, MaskError) as err:
            raise permanent(err.code, err.message) from err
        except ValueError as err:
            raise permanent(ErrorCode.IMAGE_NOT_FOUND, f"原图无法解码：{err}") from err
        png = await self._provider.generate(
            ImageRequest(
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
        )
        key = self._resolver.blobs.put(png, kind="images", ext="png")
        return ExecutionResult(
            image_url=self._resolver.url_for(key),
            blob_key=key,
            task_type=task_type,
            prompt=request.prompt,
            seed=request.seed,
            width=params.width,
            height=params.height,
            style_strength=params.style_strength,
            metadata={
                "provider": self._provider.name,
                "preferredModel": request.preferred_model,
                "baseImageUrl": request.base_image_url,
                "maskKey": request.mask.blob_key if request.mask else None,
            },
        )
