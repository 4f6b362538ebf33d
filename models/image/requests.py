"""What a client sends to start an image-agent turn: the run input of `POST /v1/runs` and the seed's chat body."""

from pydantic import Field

from models.base import RequestModel
from models.image.state import Point, PreferredModel
from models.runs import SESSION_ID_PATTERN

MAX_REQUEST_TEXT = 100_000
"""Texts up to this length are accepted and truncated to 1000 characters by ValidateInput (seed 000 §8.1)."""


class MaskDataIn(RequestModel):
    """Seed 000 §2.1 `maskData`: a base64 PNG/JPG mask and/or drawn paths, and the base image URL."""

    base64: str | None = None
    image_url: str | None = None
    coordinates: list[Point] | list[list[Point]] | None = None
    """One path (a list of points), or several paths."""

    def paths(self) -> list[list[Point]]:
        if not self.coordinates:
            return []
        first = self.coordinates[0]
        if isinstance(first, Point):
            return [self.coordinates]  # type: ignore[list-item]
        return self.coordinates  # type: ignore[return-value]


class ImageRunInput(RequestModel):
    """One message to the image agent: `input` of `POST /v1/runs` with `workflow: ImageAgentWorkflow`."""

    text: str = Field(default="", max_length=MAX_REQUEST_TEXT)
    mask_data: MaskDataIn | None = None
    preferred_model: PreferredModel | None = None


class ChatRequest(ImageRunInput):
    """`POST /api/agent/chat` body, compatible with the seed's ChatRequest."""

    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)
