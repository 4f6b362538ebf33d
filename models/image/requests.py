"""What a client sends to start an image-agent turn: the run input of `POST /v1/runs` and the seed's chat body."""

from pydantic import Field

from models.base import RequestModel
from models.image.state import PreferredModel
from models.paths import PackedPath
from models.runs import SESSION_ID_PATTERN

MAX_REQUEST_TEXT = 100_000
"""Texts up to this length are accepted and truncated to 1000 characters by ValidateInput (seed 000 §8.1)."""


class MaskDataIn(RequestModel):
    """Seed 000 §2.1 `maskData`: a base64 PNG/JPG mask and/or drawn paths, and the base image URL."""

    base64: str | None = None
    image_url: str | None = None
    coordinates: PackedPath | list[PackedPath] | None = None
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
