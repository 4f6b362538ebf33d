"""OpenAI's Images API (`gpt-image-1`) as an `ImageProvider`: one httpx call per image, errors mapped onto
`errors.py`.

text_to_image is `POST /images/generations` (JSON), or, with reference images (a GPT image model takes up to
`MAX_REFERENCES`), `POST /images/edits` (multipart) with each reference as an `image[]` file: the documented way to
make a new image that follows given ones. inpainting and parameter_adjustment are `POST /images/edits` (multipart),
inpainting with a mask. OpenAI's mask marks the area to edit with fully transparent pixels (alpha 0)
and must have the image's dimensions, so ours (mode L, 255 = repaint) is sent as an RGBA PNG of the base image's
size, alpha 0 where ours is 255 and opaque elsewhere. The size sent is whichever of the model's standard sizes
(1024x1024, 1536x1024, 1024x1536) is nearest the request's aspect ratio; the answer (`data[0].b64_json`) is
brought back to the requested width and height (text to image: centred cover crop; edits: a plain resize, so
the kept pixels stay where they were in the base image) and returned as PNG.

The API is synchronous: one call returns the finished image, and generation often takes tens of seconds. The
Executor activity that awaits `generate` therefore needs a start-to-close timeout longer than this client's
`timeout` (60 s by default): the 5 s that suits the local renderer would cut every call. The call cannot be
resumed, so a retried attempt pays for a new image. This client never retries or sleeps: Temporal's retry policy
owns retries, guided by `retryable` and `retry_after` on the raised errors.

Error mapping (every error's message carries OpenAI's message and the `x-request-id` header):
  a quota or billing code, any 4xx (429 `insufficient_quota`; 400 `billing_hard_limit_reached`)  QuotaExhausted
  other 429                                                       ProviderThrottled (`retry-after(-ms)` honoured)
  `moderation_blocked` (GPT image) / `content_policy_violation` (DALL·E)   ContentRefused
  401, 403                                                        ProviderAuthFailed
  408, 409, 5xx, timeouts, transport errors, an unreadable 200    ProviderUnavailable
  any other 4xx, or a request this client cannot send             InvalidImageRequest
"""

import asyncio
import base64
import binascii
from typing import Any

import httpx
from PIL import Image, ImageOps

from imaging.image_provider import ImageRequest
from imaging.masks import mask_from_image, sniff_image_format
from imaging.providers.errors import (
    ContentRefused,
    ImageProviderError,
    InvalidImageRequest,
    ProviderAuthFailed,
    ProviderThrottled,
    ProviderUnavailable,
    QuotaExhausted,
    unreachable,
)
from imaging.providers.sizes import nearest_aspect
from imaging.rendering import ImageDecodeError, decode_image, encode_png
from llm.adapters.openai_errors import QUOTA_CODES
from llm.retry import retry_after_from_headers

SIZES: tuple[tuple[int, int], ...] = ((1024, 1024), (1536, 1024), (1024, 1536))
"""The GPT image models' standard output sizes (width, height), in the order ties are settled."""
CONTENT_CODES = frozenset({"moderation_blocked", "content_policy_violation"})
"""Codes of a request the safety system refused: `moderation_blocked` from the GPT image models,
`content_policy_violation` from DALL·E."""
MAX_REFERENCES = 16
"""The most input images a GPT image model takes in one edits request (DALL·E models take none here)."""
RETRYABLE_CLIENT_STATUSES = frozenset({408, 409})
"""Request timeout and lock timeout: 4xx statuses the official SDK retries, so transient here too."""
PROVIDER = "openai-images"


class OpenAIImagesProvider:
    """Generates and edits images with OpenAI's Images API; see the module docstring for the wire format."""

    name = PROVIDER

    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        api_key: str,
        base_url: str = "https://api.openai.com/v1",
        model: str = "gpt-image-1",
        timeout: float = 60.0,
    ) -> None:
        self._http = http
        self._api_key = api_key
        self._base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout

    def model_for(self, request: ImageRequest) -> str:
        """The request's `preferredModel` when it names a GPT image model, else the configured model."""
        if request.model is not None and request.model.startswith("gpt-image-"):
            return request.model
        return self.model

    def max_references(self, model: str | None) -> int:
        """`MAX_REFERENCES` for a GPT image model, 0 for the others."""
        chosen = model if model is not None and model.startswith("gpt-image-") else self.model
        return MAX_REFERENCES if chosen.startswith("gpt-image-") else 0

    async def generate(self, request: ImageRequest) -> bytes:
        """PNG bytes of `request.width` x `request.height`; raises the errors of `errors.py`."""
        if not self._api_key:
            raise ProviderAuthFailed("no OpenAI API key is configured", provider=PROVIDER, code="missing_api_key")
        fields = {"model": self.model_for(request), "prompt": request.prompt, "size": nearest_size(request)}
        if request.task_type == "text_to_image" and request.references:
            files = await asyncio.to_thread(reference_files, request)
            answer = await self._post("/images/edits", data={**fields, "n": "1"}, files=files)
        elif request.task_type == "text_to_image":
            answer = await self._post("/images/generations", json={**fields, "n": 1})
        else:
            files = await asyncio.to_thread(edit_files, request)
            answer = await self._post("/images/edits", data={**fields, "n": "1"}, files=files)
        return await asyncio.to_thread(_answered_png, answer, request)

    async def _post(self, path: str, **content: Any) -> httpx.Response:
        try:
            response = await self._http.post(
                f"{self._base_url}{path}",
                headers={"authorization": f"Bearer {self._api_key}"},
                timeout=self.timeout,
                **content,
            )
        except httpx.TransportError as err:
            raise unreachable(PROVIDER, f"OpenAI Images {path}", err) from err
        if response.status_code >= 400:
            raise error_for(path, response)
        return response


def nearest_size(request: ImageRequest) -> str:
    """The standard size whose aspect ratio is nearest the request's (compared as log ratios, so 2:1 and 1:2 are
    as far from square), as OpenAI's `WIDTHxHEIGHT`."""
    width, height = nearest_aspect(SIZES, request.width, request.height)
    return f"{width}x{height}"


def openai_mask(mask: bytes, size: tuple[int, int]) -> bytes:
    """Our mask (mode L, 255 = repaint) as OpenAI's: an RGBA PNG of `size`, alpha 0 where ours repaints and 255
    elsewhere. Raises `ValueError` (a `MaskError`) for bytes that are not a mask image."""
    repaint = mask_from_image(mask, size)
    rgba = Image.new("RGBA", size, (0, 0, 0, 255))
    rgba.putalpha(ImageOps.invert(repaint))
    return encode_png(rgba)


def edit_files(request: ImageRequest) -> list[tuple[str, tuple[str, bytes, str]]]:
    """The multipart files of an edit: `image` (the base image as PNG) and, for inpainting, `mask`."""
    if request.base_image is None:
        raise InvalidImageRequest(
            f"{request.task_type} needs base_image: the image to edit", provider=PROVIDER, code="missing_base_image"
        )
    try:
        base = decode_image(request.base_image)
    except ImageDecodeError as err:
        raise InvalidImageRequest(
            f"the base image cannot be decoded: {err}", provider=PROVIDER, code="invalid_base_image"
        ) from err
    image = request.base_image if sniff_image_format(request.base_image) == "png" else encode_png(base)
    files = [("image", ("image.png", image, "image/png"))]
    if request.task_type == "inpainting":
        if request.mask is None:
            raise InvalidImageRequest(
                "inpainting needs a mask (PNG, 255 = repaint)", provider=PROVIDER, code="missing_mask"
            )
        try:
            mask = openai_mask(request.mask, base.size)
        except ValueError as err:
            raise InvalidImageRequest(
                f"the mask cannot be decoded: {err}", provider=PROVIDER, code="invalid_mask"
            ) from err
        files.append(("mask", ("mask.png", mask, "image/png")))
    return files


def reference_files(request: ImageRequest) -> list[tuple[str, tuple[str, bytes, str]]]:
    """The multipart files of a text-to-image request with references: each as `image[]`, PNG (other formats are
    re-encoded), at most `MAX_REFERENCES`; a reference that cannot be decoded is refused."""
    if len(request.references) > MAX_REFERENCES:
        raise InvalidImageRequest(
            f"{len(request.references)} reference images; a GPT image model takes at most {MAX_REFERENCES}",
            provider=PROVIDER,
            code="too_many_references",
        )
    files = []
    for index, reference in enumerate(request.references, start=1):
        if sniff_image_format(reference) != "png":
            try:
                reference = encode_png(decode_image(reference))
            except ImageDecodeError as err:
                raise InvalidImageRequest(
                    f"reference image {index} cannot be decoded: {err}", provider=PROVIDER, code="invalid_reference"
                ) from err
        files.append(("image[]", (f"reference-{index}.png", reference, "image/png")))
    return files


def error_for(path: str, response: httpx.Response) -> ImageProviderError:
    """The typed error for an HTTP error answer (see the table in the module docstring)."""
    status = response.status_code
    error = _error_fields(response)
    code = str(error.get("code") or error.get("type") or "")
    codes = {str(value) for value in (error.get("code"), error.get("type")) if value}
    message = str(error.get("message") or "").strip() or response.text.strip()[:300] or response.reason_phrase
    request_id = response.headers.get("x-request-id", "none")
    text = f"OpenAI Images {path}: HTTP {status} {code or 'no code'}: {message} (x-request-id {request_id})"
    cls: type[ImageProviderError]
    if 400 <= status < 500 and codes & QUOTA_CODES:
        cls = QuotaExhausted
    elif status == 429:
        cls = ProviderThrottled
    elif 400 <= status < 500 and codes & CONTENT_CODES:
        cls = ContentRefused
    elif status in (401, 403):
        cls = ProviderAuthFailed
    elif status >= 500 or status in RETRYABLE_CLIENT_STATUSES:
        cls = ProviderUnavailable
    else:
        cls = InvalidImageRequest
    return cls(
        text,
        provider=PROVIDER,
        code=code,
        status=status,
        retry_after=retry_after_from_headers(response.headers),
    )


def _error_fields(response: httpx.Response) -> dict[str, Any]:
    """OpenAI's `{"error": {"message", "type", "param", "code"}}`, or empty when the body is not that."""
    try:
        body = response.json()
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def _image_bytes(response: httpx.Response) -> bytes:
    """The decoded `data[0].b64_json` of a 200; an answer without one is the provider's failure."""
    request_id = response.headers.get("x-request-id", "none")
    try:
        encoded = response.json()["data"][0]["b64_json"]
        if not isinstance(encoded, str):
            raise TypeError(f"b64_json is {type(encoded).__name__}")
        return base64.b64decode(encoded, validate=True)
    except (ValueError, LookupError, TypeError, binascii.Error) as err:
        raise ProviderUnavailable(
            f"OpenAI Images answered 200 without a readable image ({type(err).__name__}: {err};"
            f" x-request-id {request_id})",
            provider=PROVIDER,
            code="malformed_response",
            status=response.status_code,
        ) from err


def _answered_png(response: httpx.Response, request: ImageRequest) -> bytes:
    """The answer's image as PNG of the requested size. In a thread: parsing a body of megabytes of base64,
    decoding it and the image, and encoding it again hold the GIL for over 100 ms an image."""
    return _as_requested_png(_image_bytes(response), request)


def _as_requested_png(data: bytes, request: ImageRequest) -> bytes:
    """The image as PNG of the requested size: unchanged bytes when they already are, else resized and encoded."""
    try:
        image = decode_image(data)
    except ImageDecodeError as err:
        raise ProviderUnavailable(
            f"OpenAI Images returned an image that cannot be decoded: {err}",
            provider=PROVIDER,
            code="malformed_image",
        ) from err
    size = (request.width, request.height)
    if image.size == size and sniff_image_format(data) == "png":
        return data
    if image.size != size:
        if request.task_type == "text_to_image":
            image = ImageOps.fit(image, size, Image.Resampling.LANCZOS)
        else:
            image = image.resize(size, Image.Resampling.LANCZOS)
    return encode_png(image)
