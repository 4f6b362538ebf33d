"""DashScope (Alibaba Cloud Model Studio) behind `preferredModel`: a `HostedImageProvider` over httpx.

Each method is one HTTP call (a short one, except a synchronous model's submit, below); the client never retries and
never sleeps (Temporal owns both).

Models and endpoints (paths under `base_url`, default the Singapore host `https://dashscope-intl.aliyuncs.com`):

    model            text to image                                           sizes (W*H)
    qwen-image       POST /api/v1/services/aigc/text2image/image-synthesis    1664*928 1472*1104 1328*1328
    qwen-image-plus    with `X-DashScope-Async: enable`: a task, polled        1104*1472 928*1664
    qwen-image-max   POST /api/v1/services/aigc/multimodal-generation/        the same five
    z-image-turbo      generation, synchronous (see below)                    any total in [512*512, 2048*2048];
                                                                              we use 1280*1280 1536*1024
                                                                              1024*1536 1472*1104 1104*1472
                                                                              1704*960 960*1704

The documentation says the asynchronous text-to-image endpoint serves only qwen-image and qwen-image-plus; every
other model is synchronous. For qwen-image-max and z-image-turbo `submit` therefore makes the synchronous call (with
`generation_timeout`, not `timeout`: it returns only once the image exists) and answers a task that is already
finished: its id is `FINISHED_TASK_PREFIX` + the result URL, `poll` of such an id reports `succeeded` with that URL
without a request, and `cancel` answers False. The size sent is the model's size nearest the request's aspect ratio.
Every request sets `n` = 1 (not for z-image-turbo, which always makes one image), `seed` = the request's seed modulo
2**31 (the documented range is [0, 2147483647]), `prompt_extend` = false (our planner writes the full prompt; the
rewrite would change it and add seconds to each image: README, Performance) and `watermark` = false (not for
z-image-turbo).

Inpainting: none of the four models takes a mask. The API's documented edit with a mask is Wan 2.1 general image
editing (`wanx2.1-imageedit`, function `description_edit_with_mask`, asynchronous, POST
/api/v1/services/aigc/image2image/image-synthesis), so every inpainting request goes there whatever the model. The
base image is sent as a Base64 data URI (`data:image/png;base64,...`, or `image/jpeg` for a JPEG; other formats are
re-encoded as PNG), which the documentation accepts in `base_image_url`; the mask likewise as a PNG data URI in
`mask_image_url`, white (255) = repaint and black = keep, resized to the base image's size (the API requires the same
resolution). parameter_adjustment is text to image with the request's prompt, size and seed on the chosen model (the
previous image is not sent: no model offered here edits without a mask in every region, see below).

Tasks: GET /api/v1/tasks/{task_id}; task_status PENDING, RUNNING, SUCCEEDED (the first `output.results[].url`),
FAILED (`output.code`, `output.message`), CANCELED; UNKNOWN, which is what a task id older than its 24-hour query
window answers, is reported as failed. A task that failed (or "succeeded" without an image) with a content
moderation code raises `ContentRefused`. Cancel: POST /api/v1/tasks/{task_id}/cancel, documented (in the DashScope
SDK) for PENDING tasks only; a refusal (4xx mapped to `InvalidImageRequest` below) is answered False.

Fetch: a plain GET of the result URL (a signed OSS URL: no API key is sent to it), at most `max_image_bytes`, refused
unless it is an image (by content type and by Pillow decoding it); decoded and re-encoded as PNG in a thread. A result
that cannot be used (expired or missing URL, not an image, too large) raises `InvalidImageRequest` (not retried: a
second download would get the same); a 5xx or timeout there is `ProviderUnavailable`, a 429 `ProviderThrottled`.

Errors (the documented error-code table; error bodies are `{"request_id", "code", "message"}`):
    DataInspectionFailed, CustomRoleBlocked, FaqRuleBlocked                      -> ContentRefused
    Arrearage, Throttling.AllocationQuota, AllocationQuota.*, Prepaid/PostpaidBillOverdue -> QuotaExhausted
    401, 403, InvalidApiKey, *AccessDenied*, CommodityNotPurchased                -> ProviderAuthFailed
    other 429, Throttling*, LimitRequests (Retry-After honoured when sent)        -> ProviderThrottled
    5xx, 408, timeouts, transport errors, a malformed success answer              -> ProviderUnavailable
    any other 4xx (InvalidParameter, ModelNotFound, ...)                          -> InvalidImageRequest

Not confirmed from the documentation: (1) the two 3:4/4:3 sizes of the qwen-image models: current pages for
qwen-image-plus/max give 1472*1104 and 1104*1472, older ones for qwen-image 1472*1140 and 1140*1472; we send the
current ones. (2) The Wan 2.1 image-editing page (2026) says it serves only the China (Beijing) region, so with the
Singapore base URL inpainting is likely refused (`InvalidImageRequest`); use `base_url="https://dashscope.aliyuncs.com"`
with a Beijing key for it. (3) `seed` on wanx2.1-imageedit (documented for other Wan models). (4) The exact answer of
the cancel endpoint for a task that is no longer PENDING (we treat any refusal as "could not be cancelled"). (5)
Whether DashScope sends Retry-After at all (none of its pages mention it).
"""

import asyncio
import base64
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote, urlsplit

import httpx

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
from imaging.rendering import decode_image, encode_png
from llm.retry import retry_after_from_headers
from models.hosted_tasks import SubmittedTask, TaskPoll, TaskStatus

PROVIDER = "dashscope"
TEXT2IMAGE_PATH = "/api/v1/services/aigc/text2image/image-synthesis"
MULTIMODAL_PATH = "/api/v1/services/aigc/multimodal-generation/generation"
IMAGE2IMAGE_PATH = "/api/v1/services/aigc/image2image/image-synthesis"
TASKS_PATH = "/api/v1/tasks"
INPAINTING_MODEL = "wanx2.1-imageedit"
INPAINTING_FUNCTION = "description_edit_with_mask"
FINISHED_TASK_PREFIX = "finished:"
"""Task ids of synchronous models: the prefix, then the result URL (the image already exists)."""
MAX_IMAGE_BYTES = 20 * 1024 * 1024
SEED_MODULUS = 2**31

QWEN_IMAGE_SIZES = ((1664, 928), (1472, 1104), (1328, 1328), (1104, 1472), (928, 1664))
Z_IMAGE_SIZES = ((1280, 1280), (1536, 1024), (1024, 1536), (1472, 1104), (1104, 1472), (1704, 960), (960, 1704))

CONTENT_CODES = frozenset({"DataInspectionFailed", "CustomRoleBlocked", "FaqRuleBlocked"})
QUOTA_CODES = frozenset({"Arrearage", "Throttling.AllocationQuota", "PrepaidBillOverdue", "PostpaidBillOverdue"})
AUTH_CODES = frozenset(
    {
        "InvalidApiKey",
        "AccessDenied",
        "Workspace.AccessDenied",
        "Model.AccessDenied",
        "AccessDenied.Unpurchased",
        "CommodityNotPurchased",
    }
)

_TASK_STATUSES: dict[str, TaskStatus] = {
    "PENDING": "pending",
    "RUNNING": "running",
    "SUCCEEDED": "succeeded",
    "FAILED": "failed",
    "CANCELED": "canceled",
}


@dataclass(frozen=True)
class DashScopeModel:
    """How one model is called: its endpoint style and its sizes."""

    synchronous: bool
    sizes: tuple[tuple[int, int], ...]
    takes_n_and_watermark: bool = True


MODELS: dict[str, DashScopeModel] = {
    "qwen-image": DashScopeModel(synchronous=False, sizes=QWEN_IMAGE_SIZES),
    "qwen-image-plus": DashScopeModel(synchronous=False, sizes=QWEN_IMAGE_SIZES),
    "qwen-image-max": DashScopeModel(synchronous=True, sizes=QWEN_IMAGE_SIZES),
    "z-image-turbo": DashScopeModel(synchronous=True, sizes=Z_IMAGE_SIZES, takes_n_and_watermark=False),
}


def size_for(model: str, width: int, height: int) -> str:
    """The model's documented size ("W*H") whose aspect ratio is nearest `width`:`height`."""
    w, h = nearest_aspect(MODELS[model].sizes, width, height)
    return f"{w}*{h}"


class DashScopeProvider:
    """DashScope's image APIs as submit / poll / fetch / cancel, each one HTTP call."""

    name = PROVIDER

    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        api_key: str,
        base_url: str = "https://dashscope-intl.aliyuncs.com",
        timeout: float = 4.0,
        generation_timeout: float = 120.0,
        max_image_bytes: int = MAX_IMAGE_BYTES,
    ) -> None:
        self._http = http
        self._api_key = api_key
        self._base_url = base_url.rstrip("/")
        self._timeout = timeout
        self._generation_timeout = generation_timeout
        self._max_image_bytes = max_image_bytes

    def supports(self, model: str) -> bool:
        """Whether `model` is one of `MODELS`."""
        return model in MODELS

    def max_references(self, model: str | None) -> int:
        """None: the four text-to-image models take a prompt only (the reference style goes into the prompt)."""
        return 0

    async def submit(self, request: ImageRequest) -> SubmittedTask:
        """Create the task: Wan 2.1 mask editing for inpainting, text to image on the chosen model otherwise."""
        if request.model is None or request.model not in MODELS:
            raise InvalidImageRequest(
                f"DashScope does not serve model {request.model!r}; it serves {', '.join(MODELS)}",
                provider=PROVIDER,
                code="UnsupportedModel",
            )
        if request.task_type == "inpainting":
            body = await asyncio.to_thread(_inpainting_body, request)
            return await self._submit_async(IMAGE2IMAGE_PATH, body)
        spec = MODELS[request.model]
        parameters: dict[str, Any] = {
            "size": size_for(request.model, request.width, request.height),
            "seed": request.seed % SEED_MODULUS,
            "prompt_extend": False,
        }
        if spec.takes_n_and_watermark:
            parameters |= {"n": 1, "watermark": False}
        if not spec.synchronous:
            body = {"model": request.model, "input": {"prompt": request.prompt}, "parameters": parameters}
            return await self._submit_async(TEXT2IMAGE_PATH, body)
        messages = [{"role": "user", "content": [{"text": request.prompt}]}]
        body = {"model": request.model, "input": {"messages": messages}, "parameters": parameters}
        answer = await self._call("POST", MULTIMODAL_PATH, "generation", json=body, timeout=self._generation_timeout)
        return SubmittedTask(provider=PROVIDER, task_id=FINISHED_TASK_PREFIX + _generated_image_url(answer))

    async def poll(self, task_id: str) -> TaskPoll:
        """The task's status now; raises `ContentRefused` for a task that content moderation stopped."""
        if task_id.startswith(FINISHED_TASK_PREFIX):
            return TaskPoll(status="succeeded", image_url=task_id.removeprefix(FINISHED_TASK_PREFIX))
        answer = await self._call("GET", f"{TASKS_PATH}/{quote(task_id, safe='')}", "task query")
        output = _object(answer.get("output"))
        provider_status = output.get("task_status")
        code, message = _text(output.get("code")), _text(output.get("message"))
        if provider_status == "UNKNOWN":
            return TaskPoll(
                status="failed",
                code="UNKNOWN",
                message=f"DashScope does not know task {task_id}: task ids expire 24 hours after submission",
            )
        if not isinstance(provider_status, str) or provider_status not in _TASK_STATUSES:
            raise _malformed("task query", answer, f"task_status {provider_status!r}")
        status = _TASK_STATUSES[provider_status]
        image_url = None
        if status == "succeeded":
            image_url, code, message = _first_result(output, code, message)
            if image_url is None:
                status = "failed"
        if status == "failed" and code in CONTENT_CODES:
            raise ContentRefused(
                f"DashScope task {task_id} failed: {code}: {message} (request_id {_request_id(answer)})",
                provider=PROVIDER,
                code=code,
            )
        return TaskPoll(status=status, image_url=image_url, code=code, message=message)

    async def fetch(self, url: str) -> bytes:
        """The result image from DashScope's result host, re-encoded as PNG."""
        if urlsplit(url).scheme not in ("http", "https"):
            raise InvalidImageRequest(
                f"DashScope result URL is not http(s): {url!r}", provider=PROVIDER, code="InvalidResultURL"
            )
        try:
            async with self._http.stream("GET", url, timeout=self._timeout) as response:
                if not response.is_success:
                    raise _fetch_error(response)
                content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if (
                    content_type
                    and not content_type.startswith("image/")
                    and content_type != "application/octet-stream"
                ):
                    raise InvalidImageRequest(
                        f"DashScope result is {content_type}, not an image", provider=PROVIDER, code="ResultNotImage"
                    )
                data = bytearray()
                async for chunk in response.aiter_bytes():
                    data += chunk
                    if len(data) > self._max_image_bytes:
                        raise InvalidImageRequest(
                            f"DashScope result is larger than {self._max_image_bytes} bytes",
                            provider=PROVIDER,
                            code="ResultTooLarge",
                        )
        except httpx.TransportError as exc:
            raise _transport_error("result download", exc) from exc
        try:
            return await asyncio.to_thread(_to_png, bytes(data))
        except ValueError as exc:
            raise InvalidImageRequest(
                f"DashScope result is not a readable image: {exc}", provider=PROVIDER, code="ResultNotImage"
            ) from exc

    async def cancel(self, task_id: str) -> bool:
        """Cancel a PENDING task; False when DashScope refuses (the task already runs or ended) or it is finished."""
        if task_id.startswith(FINISHED_TASK_PREFIX):
            return False
        try:
            await self._call("POST", f"{TASKS_PATH}/{quote(task_id, safe='')}/cancel", "task cancel")
        except InvalidImageRequest:
            return False
        return True

    async def _submit_async(self, path: str, body: dict[str, Any]) -> SubmittedTask:
        answer = await self._call("POST", path, "task submit", json=body, headers={"X-DashScope-Async": "enable"})
        task_id = _object(answer.get("output")).get("task_id")
        if not isinstance(task_id, str) or not task_id:
            raise _malformed("task submit", answer, "no output.task_id")
        return SubmittedTask(provider=PROVIDER, task_id=task_id)

    async def _call(
        self,
        method: Literal["GET", "POST"],
        path: str,
        operation: str,
        *,
        json: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        try:
            response = await self._http.request(
                method,
                self._base_url + path,
                json=json,
                headers={"Authorization": f"Bearer {self._api_key}", **(headers or {})},
                timeout=timeout or self._timeout,
            )
        except httpx.TransportError as exc:
            raise _transport_error(operation, exc) from exc
        answer = _json_object(response)
        if not response.is_success:
            raise _api_error(operation, response, answer)
        return answer


def _inpainting_body(request: ImageRequest) -> dict[str, Any]:
    """The Wan 2.1 mask-editing body, images inlined as data URIs (decoding runs in a worker thread)."""
    if request.base_image is None or request.mask is None:
        raise InvalidImageRequest(
            "inpainting needs both base_image and mask (PNG, 255 = repaint)", provider=PROVIDER, code="MissingImage"
        )
    try:
        base = decode_image(request.base_image)
        mask = mask_from_image(request.mask, base.size)
    except ValueError as exc:
        raise InvalidImageRequest(
            f"inpainting image or mask is unreadable: {exc}", provider=PROVIDER, code="InvalidImage"
        ) from exc
    base_format = sniff_image_format(request.base_image)
    if base_format in ("png", "jpeg"):
        base_uri = _data_uri(f"image/{base_format}", request.base_image)
    else:
        base_uri = _data_uri("image/png", encode_png(base))
    return {
        "model": INPAINTING_MODEL,
        "input": {
            "function": INPAINTING_FUNCTION,
            "prompt": request.prompt,
            "base_image_url": base_uri,
            "mask_image_url": _data_uri("image/png", encode_png(mask)),
        },
        "parameters": {"n": 1, "seed": request.seed % SEED_MODULUS, "watermark": False},
    }


def _to_png(data: bytes) -> bytes:
    image = decode_image(data)
    return encode_png(image.convert("RGB") if image.mode == "CMYK" else image)  # PNG has no CMYK


def _data_uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _generated_image_url(answer: dict[str, Any]) -> str:
    """The image URL of a synchronous generation: `output.choices[0].message.content[].image`."""
    choices = _object(answer.get("output")).get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    content = _object(_object(first).get("message")).get("content")
    for item in content if isinstance(content, list) else []:
        url = _object(item).get("image")
        if isinstance(url, str) and url:
            return url
    raise _malformed("generation", answer, "no image in output.choices[0].message.content")


def _first_result(output: dict[str, Any], code: str, message: str) -> tuple[str | None, str, str]:
    """The first result URL of a succeeded task, else the code and message a result carried instead."""
    results = output.get("results")
    for item in results if isinstance(results, list) else []:
        result = _object(item)
        url = result.get("url")
        if isinstance(url, str) and url:
            return url, code, message
        code = code or _text(result.get("code"))
        message = message or _text(result.get("message"))
    return None, code or "NoResult", message or "the task succeeded without an image URL"


def _api_error(operation: str, response: httpx.Response, answer: dict[str, Any]) -> ImageProviderError:
    status = response.status_code
    code = _text(answer.get("code"))
    message = _text(answer.get("message")) or response.reason_phrase
    text = f"DashScope {operation} failed: HTTP {status} {code or '-'}: {message} (request_id {_request_id(answer)})"
    if code in CONTENT_CODES:
        return ContentRefused(text, provider=PROVIDER, code=code, status=status)
    if code in QUOTA_CODES or code.startswith("AllocationQuota."):
        return QuotaExhausted(text, provider=PROVIDER, code=code, status=status)
    if code in AUTH_CODES or status in (401, 403):
        return ProviderAuthFailed(text, provider=PROVIDER, code=code, status=status)
    if status == 429 or code.startswith("Throttling") or code == "LimitRequests":
        retry_after = retry_after_from_headers(response.headers)
        return ProviderThrottled(text, provider=PROVIDER, code=code, status=status, retry_after=retry_after)
    if status >= 500 or status == 408:
        return ProviderUnavailable(text, provider=PROVIDER, code=code, status=status)
    return InvalidImageRequest(text, provider=PROVIDER, code=code, status=status)


def _fetch_error(response: httpx.Response) -> ImageProviderError:
    status = response.status_code
    text = f"DashScope result download failed: HTTP {status} {response.reason_phrase}"
    if status == 429:
        retry_after = retry_after_from_headers(response.headers)
        return ProviderThrottled(text, provider=PROVIDER, status=status, retry_after=retry_after)
    if status >= 500:
        return ProviderUnavailable(text, provider=PROVIDER, status=status)
    return InvalidImageRequest(
        text + " (expired or missing)", provider=PROVIDER, code="ResultUnavailable", status=status
    )


def _transport_error(operation: str, exc: httpx.TransportError) -> ProviderUnavailable:
    return unreachable(PROVIDER, f"DashScope {operation}", exc)


def _malformed(operation: str, answer: dict[str, Any], what: str) -> ProviderUnavailable:
    return ProviderUnavailable(
        f"DashScope {operation} answered without what it documents ({what}; request_id {_request_id(answer)})",
        provider=PROVIDER,
        code="MalformedResponse",
        status=200,
    )


def _json_object(response: httpx.Response) -> dict[str, Any]:
    try:
        return _object(response.json())
    except ValueError:
        return {}


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _request_id(answer: dict[str, Any]) -> str:
    return _text(answer.get("request_id")) or "-"
