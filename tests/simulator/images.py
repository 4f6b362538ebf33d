"""The simulator's image model: OpenAI Images' `POST /v1/images/generations`, the synchronous image API a
deployment configures with `IMAGE_PROVIDER_DEFAULT=openai` (`imaging/providers/openai_images.py`).

A request (read by `requests.parse_request`: its prompt as the user's message) is answered after the profile's
`image_seconds` (times the time scale) with `{"created", "data": [{"b64_json"}]}`: a PNG of the size asked for.
The picture is the local renderer's for a fixed prompt, drawn once per size and kept, so that the simulator spends
no CPU per image (a user's image API spends none of the deployment's) and every image of a size is the same bytes.
`/images/edits` (multipart) is not simulated.
"""

import base64
import re
from functools import cache
from typing import Any

from imaging.rendering import encode_png, render_text_to_image

PATHS = frozenset({"/v1/images/generations", "/images/generations"})
SIZE = re.compile(r"^(\d{2,4})x(\d{2,4})$")
DEFAULT_SIZE = "1024x1024"
PICTURE_PROMPT = "赛博朋克风格的城市夜景，霓虹灯下的猫"
"""What every simulated image shows (lit, not blank, so a Critic's pixel checks pass it as a real image)."""


def request_error(body: dict[str, Any]) -> str | None:
    """Why the request cannot be answered (OpenAI's 400 message), or None."""
    if not str(body.get("prompt") or "").strip():
        return "'prompt' is a required property"
    if SIZE.match(str(body.get("size") or DEFAULT_SIZE)) is None:
        return f"Invalid value for 'size': {body.get('size')!r}. Expected WIDTHxHEIGHT."
    if body.get("n", 1) != 1:
        return "the simulator answers one image per request (n=1)"
    return None


def image_body(body: dict[str, Any], created: int) -> dict[str, Any]:
    """The 200 body for a valid request (`request_error` is None): one image of the size asked for."""
    return {"created": created, "data": [{"b64_json": _picture(str(body.get("size") or DEFAULT_SIZE))}]}


@cache
def _picture(size: str) -> str:
    """The base64 PNG of `size` (`WIDTHxHEIGHT`), drawn on first use."""
    match = SIZE.match(size)
    assert match is not None, size
    width, height = int(match.group(1)), int(match.group(2))
    image = render_text_to_image(PICTURE_PROMPT, seed=7, width=width, height=height, style_strength=0.6)
    return base64.b64encode(encode_png(image)).decode()
