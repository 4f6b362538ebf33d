"""The image-provider interface the Executor calls, and the offline local renderer behind it.

A provider turns one `ImageRequest` into PNG bytes. Images travel as bytes between the Executor activity and
the provider only; the Executor stores the result in the blob store so no image enters workflow history.
"""

import asyncio
from typing import Protocol

from pydantic import BaseModel

from imaging.masks import mask_from_image
from imaging.rendering import (
    decode_image,
    encode_png,
    render_adjustment,
    render_inpainting,
    render_text_to_image,
)
from models.image.state import TaskType


class ImageRequest(BaseModel):
    """Everything a provider needs for one image."""

    task_type: TaskType
    prompt: str
    seed: int
    width: int
    height: int
    style_strength: float
    """0..1; the local renderer clamps values outside that range."""
    base_image: bytes | None = None
    """The image to edit: the original for inpainting, the previous result for parameter_adjustment."""
    mask: bytes | None = None
    """PNG, mode L, 255 = repaint (inpainting only)."""
    model: str | None = None
    """The user's `preferredModel`, carried through to providers that offer several models."""
    references: list[bytes] = []
    """Photos the image should follow (the user's reference images), at most `max_references(model)` of them: only
    for a model that takes them; the others get the style measured from them in the prompt."""


class ImageProvider(Protocol):
    """Something that renders an image in one call: the local renderer, or a synchronous image API (OpenAI
    Images). Transient failures (timeouts, 429, 5xx) are raised as they are so the activity's retry policy handles
    them; a rejected request (bad prompt, content policy) is a non-retryable error. A task-based API (DashScope's
    qwen-image), whose image is ready 5–60 s later, is a `HostedImageProvider` instead
    (`activities.common.hosted_providers`): the workflow submits, waits on durable timers and polls."""

    name: str

    async def generate(self, request: ImageRequest) -> bytes:
        """PNG bytes for the request."""
        ...

    def max_references(self, model: str | None) -> int:
        """How many reference images `model` takes with a text-to-image request (0: none)."""
        ...


class LocalImageProvider:
    """Renders real PNGs on this machine with `imaging.rendering`: the same request gives the same bytes."""

    name = "local-renderer"

    def max_references(self, model: str | None) -> int:
        """None: the renderer follows the measured style the prompt names, not the photos."""
        return 0

    async def generate(self, request: ImageRequest) -> bytes:
        """Render off the event loop, so heartbeats and other activities keep running."""
        return await asyncio.to_thread(_render, request)


def _render(request: ImageRequest) -> bytes:
    if request.task_type == "text_to_image":
        image = render_text_to_image(
            request.prompt,
            seed=request.seed,
            width=request.width,
            height=request.height,
            style_strength=request.style_strength,
        )
    elif request.task_type == "inpainting":
        if request.base_image is None or request.mask is None:
            raise ValueError("inpainting needs both base_image (the image to edit) and mask (PNG, 255 = repaint)")
        base = decode_image(request.base_image)
        image = render_inpainting(
            base,
            mask_from_image(request.mask, base.size),
            request.prompt,
            seed=request.seed,
            style_strength=request.style_strength,
        )
    else:
        if request.base_image is None:
            raise ValueError("parameter_adjustment needs base_image: the previous image to start from")
        image = render_adjustment(
            decode_image(request.base_image),
            request.prompt,
            seed=request.seed,
            width=request.width,
            height=request.height,
            style_strength=request.style_strength,
        )
    return encode_png(image)
