"""Request and response bodies of the gateway (camelCase JSON, as the seeds name them)."""

from datetime import datetime
from typing import Any

from pydantic import Field

from models.agent import Point, PreferredModel
from models.base import CamelModel

SESSION_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
MAX_REQUEST_TEXT = 100_000
"""Texts up to this length are accepted and truncated to 1000 characters by ValidateInput (seed 000 §8.1)."""


class MaskDataIn(CamelModel):
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


class ChatRequest(CamelModel):
    """`POST /api/agent/chat` body, compatible with the seed's ChatRequest."""

    text: str = Field(default="", max_length=MAX_REQUEST_TEXT)
    mask_data: MaskDataIn | None = None
    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)
    preferred_model: PreferredModel | None = None


class RunView(CamelModel):
    """`GET /v1/runs/{id}`: Temporal's view of the run plus the workflow's own `state`."""

    run_id: str
    workflow_type: str
    status: str
    start_time: datetime | None = None
    close_time: datetime | None = None
    state: dict[str, Any] | None = None


class BlobView(CamelModel):
    key: str
    url: str
    content_type: str
    size: int
