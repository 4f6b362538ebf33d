"""What a client sends to start an image-agent turn: the run input of `POST /v1/runs` and the seed's chat body."""

import math
from typing import Annotated

from pydantic import Field, WithJsonSchema

from models.base import RequestModel
from models.image.state import PreferredModel
from models.paths import MAX_PATHS, PackedPath
from models.runs import SESSION_ID_PATTERN

MAX_REQUEST_TEXT = 100_000
"""Texts up to this length are accepted and truncated to 1000 characters by ValidateInput (seed 000 §8.1)."""
MAX_MASK_BYTES = 10 * 1024 * 1024
"""Largest decoded mask image, in bytes."""
MAX_MASK_FIELD_CHARS = 4 * math.ceil(MAX_MASK_BYTES / 3) + 256
"""Longest `maskData.base64`: the Base64 of the largest mask, with room for a `data:` URL header and whitespace
around it. `imaging.masks.decode_mask_base64` judges it (`MASK_TOO_LARGE`, and `MASK_INVALID_FORMAT` for anything
but Base64, which is ASCII), so its schema says so without pydantic refusing it first under another code."""
MAX_URL_CHARS = 8192
"""Longest image URL (a gateway's own are a few hundred characters; a presigned one a few thousand)."""
Base64Field = Annotated[
    str, WithJsonSchema({"type": "string", "maxLength": MAX_MASK_FIELD_CHARS, "pattern": r"^[\t\n\r -~]*$"})
]
MaskPaths = Annotated[list[PackedPath], Field(json_schema_extra={"maxItems": MAX_PATHS})]
"""Several paths; at most `MAX_PATHS`, judged with their own code (`MASK_TOO_MANY_PATHS`)."""


class MaskDataIn(RequestModel):
    """Seed 000 §2.1 `maskData`: a base64 PNG/JPG mask and/or drawn paths, and the base image URL."""

    base64: Base64Field | None = None
    image_url: str | None = Field(default=None, max_length=MAX_URL_CHARS)
    coordinates: PackedPath | MaskPaths | None = None
    """One path (a list of `{"x", "y"}` points), or several paths (`models.paths`)."""

    def paths(self) -> list[PackedPath]:
        if isinstance(self.coordinates, PackedPath):
            return [self.coordinates] if len(self.coordinates) else []
        return self.coordinates or []


class ImageRunInput(RequestModel):
    """One message to the image agent: `input` of `POST /v1/runs` with `workflow: ImageAgentWorkflow`."""

    text: str = Field(default="", max_length=MAX_REQUEST_TEXT)
    mask_data: MaskDataIn | None = None
    preferred_model: PreferredModel | None = None
    allow_fallback: bool | None = None
    """Whether a hosted model whose quota is spent may fall back to the local renderer (default
    `ALLOW_IMAGE_FALLBACK`, true)."""


class ChatRequest(ImageRunInput):
    """`POST /api/agent/chat` body, compatible with the seed's ChatRequest."""

    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)
