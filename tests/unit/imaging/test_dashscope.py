"""The DashScope image provider against a loopback server that answers as DashScope documents and also serves the
result images: submit (text to image, synchronous models, inpainting), poll, fetch, cancel and the error mapping."""

import base64
import email.utils
import io
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from PIL import Image

from imaging.image_provider import ImageRequest
from imaging.providers.dashscope import FINISHED_TASK_PREFIX, DashScopeProvider, size_for
from imaging.providers.errors import (
    ContentRefused,
    ImageProviderError,
    InvalidImageRequest,
    ProviderAuthFailed,
    ProviderThrottled,
    ProviderUnavailable,
    QuotaExhausted,
)
from imaging.rendering import encode_png, render_text_to_image
from models.hosted_tasks import SubmittedTask, TaskPoll, TaskStatus
from models.image.state import TaskType
from tests.llm.loopback import Fixture, Loopback

KEY = "sk-test-key"
PROMPT = "一只赛博朋克风格的猫，霓虹灯下的城市"
RESULT_URL = "https://dashscope-result-sgp.oss-ap-southeast-1.aliyuncs.com/1d/ab/result.png?Expires=1&Signature=x"
TEXT2IMAGE = "/api/v1/services/aigc/text2image/image-synthesis"
MULTIMODAL = "/api/v1/services/aigc/multimodal-generation/generation"
IMAGE2IMAGE = "/api/v1/services/aigc/image2image/image-synthesis"


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
def provider(http: httpx.AsyncClient, loopback: Loopback) -> DashScopeProvider:
    return DashScopeProvider(http, api_key=KEY, base_url=loopback.base_url)


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (64, 48)) -> bytes:
    image = render_text_to_image(PROMPT, seed=3, width=size[0], height=size[1], style_strength=0.5)
    if fmt == "PNG":
        return encode_png(image)
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def request(
    task_type: TaskType = "text_to_image",
    *,
    model: str | None = "qwen-image-plus",
    width: int = 1920,
    height: int = 1080,
    seed: int = 42,
    base_image: bytes | None = None,
    mask: bytes | None = None,
) -> ImageRequest:
    return ImageRequest(
        task_type=task_type,
        prompt=PROMPT,
        seed=seed,
        width=width,
        height=height,
        style_strength=0.6,
        base_image=base_image,
        mask=mask,
        model=model,
    )


def accepted(task_id: str = "0385dc79-5ff8-4d82-bcb6-task") -> Fixture:
    """The documented answer to an asynchronous submit."""
    return Fixture.json({"output": {"task_status": "PENDING", "task_id": task_id}, "request_id": "req-submit"})


def task(status: str, **output: Any) -> Fixture:
    """The documented answer to GET /api/v1/tasks/{task_id}."""
    return Fixture.json(
        {"request_id": "req-poll", "output": {"task_id": "t-1", "task_status": status, **output}, "usage": {}}
    )


def failure(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Fixture:
    """A documented error answer: HTTP status and a body with request_id, code and message."""
    return Fixture.json({"request_id": "req-7f3a", "code": code, "message": message}, status=status, headers=headers)


def data_uri_bytes(uri: str, mime: str) -> bytes:
    prefix = f"data:{mime};base64,"
    assert uri.startswith(prefix)
    return base64.b64decode(uri.removeprefix(prefix))


# --- submit ------------------------------------------------------------------------------------------------


async def test_text_to_image_is_an_async_task_with_the_documented_headers_and_body(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    loopback.queue(accepted("task-abc"))

    submitted = await provider.submit(request(seed=42))

    assert submitted == SubmittedTask(provider="dashscope", task_id="task-abc")
    [sent] = loopback.requests
    assert (sent.method, sent.path) == ("POST", TEXT2IMAGE)
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.headers["x-dashscope-async"] == "enable"
    assert sent.headers["content-type"] == "application/json"
    assert sent.json() == {
        "model": "qwen-image-plus",
        "input": {"prompt": PROMPT},
        "parameters": {"size": "1664*928", "seed": 42, "prompt_extend": False, "n": 1, "watermark": False},
    }


@pytest.mark.parametrize(
    ("model", "width", "height", "size"),
    [
        ("qwen-image", 1024, 1024, "1328*1328"),
        ("qwen-image", 800, 600, "1472*1104"),
        ("qwen-image-plus", 600, 800, "1104*1472"),
        ("qwen-image-plus", 1080, 1920, "928*1664"),
        ("qwen-image-max", 3000, 1000, "1664*928"),
        ("z-image-turbo", 512, 512, "1280*1280"),
        ("z-image-turbo", 1200, 800, "1536*1024"),
        ("z-image-turbo", 720, 1280, "960*1704"),
    ],
)
def test_the_size_is_the_models_documented_size_nearest_the_aspect_ratio(
    model: str, width: int, height: int, size: str
) -> None:
    assert size_for(model, width, height) == size


async def test_a_seed_beyond_the_documented_range_is_folded_into_it(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    loopback.queue(accepted())

    await provider.submit(request(seed=2**31 + 5))

    assert loopback.requests[0].json()["parameters"]["seed"] == 5


async def test_parameter_adjustment_is_text_to_image_with_the_prompt_and_no_image(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    loopback.queue(accepted())

    await provider.submit(request("parameter_adjustment", model="qwen-image", width=600, height=800, base_image=b"x"))

    [sent] = loopback.requests
    assert sent.path == TEXT2IMAGE
    assert sent.json() == {
        "model": "qwen-image",
        "input": {"prompt": PROMPT},
        "parameters": {"size": "1104*1472", "seed": 42, "prompt_extend": False, "n": 1, "watermark": False},
    }


async def test_inpainting_is_wan_mask_editing_with_the_images_as_data_uris(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    base = image_bytes("PNG", (64, 48))
    half_size_mask = Image.new("L", (32, 24), 0)
    half_size_mask.paste(255, (0, 0, 16, 24))  # the left half repaints
    loopback.queue(accepted("task-edit"))

    submitted = await provider.submit(request("inpainting", base_image=base, mask=encode_png(half_size_mask)))

    assert submitted.task_id == "task-edit"
    [sent] = loopback.requests
    assert (sent.method, sent.path) == ("POST", IMAGE2IMAGE)
    assert sent.headers["x-dashscope-async"] == "enable"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    body = sent.json()
    assert body["model"] == "wanx2.1-imageedit"
    assert body["parameters"] == {"n": 1, "seed": 42, "watermark": False}
    assert body["input"]["function"] == "description_edit_with_mask"
    assert body["input"]["prompt"] == PROMPT
    assert data_uri_bytes(body["input"]["base_image_url"], "image/png") == base
    mask = Image.open(io.BytesIO(data_uri_bytes(body["input"]["mask_image_url"], "image/png")))
    assert (mask.mode, mask.size) == ("L", (64, 48))  # the base image's resolution, as the API requires
    assert (mask.getpixel((10, 20)), mask.getpixel((50, 20))) == (255, 0)  # white repaints, black keeps


@pytest.mark.parametrize(("fmt", "mime"), [("JPEG", "image/jpeg"), ("WEBP", "image/png")])
async def test_inpainting_sends_a_jpeg_base_as_jpeg_and_other_formats_as_png(
    provider: DashScopeProvider, loopback: Loopback, fmt: str, mime: str
) -> None:
    base = image_bytes(fmt)
    loopback.queue(accepted())

    await provider.submit(request("inpainting", base_image=base, mask=encode_png(Image.new("L", (64, 48), 255))))

    sent = data_uri_bytes(loopback.requests[0].json()["input"]["base_image_url"], mime)
    assert Image.open(io.BytesIO(sent)).size == (64, 48)
    assert (sent == base) == (fmt == "JPEG")


@pytest.mark.parametrize(
    "bad",
    [
        request("inpainting", base_image=image_bytes()),  # no mask
        request("inpainting", base_image=b"not an image", mask=encode_png(Image.new("L", (8, 8), 255))),
        request(model="wanx-v1"),
        request(model=None),
    ],
)
async def test_a_request_dashscope_cannot_serve_is_refused_before_any_call(
    provider: DashScopeProvider, loopback: Loopback, bad: ImageRequest
) -> None:
    with pytest.raises(InvalidImageRequest) as refused:
        await provider.submit(bad)

    assert not refused.value.retryable
    assert loopback.requests == []


@pytest.mark.parametrize(
    ("model", "parameters"),
    [
        (
            "qwen-image-max",
            {"size": "1328*1328", "seed": 42, "prompt_extend": False, "n": 1, "watermark": False},
        ),
        ("z-image-turbo", {"size": "1280*1280", "seed": 42, "prompt_extend": False}),
    ],
)
async def test_a_synchronous_model_generates_at_submit_and_its_task_is_already_finished(
    provider: DashScopeProvider, loopback: Loopback, model: str, parameters: dict[str, Any]
) -> None:
    content = [{"text": "the rewritten prompt"}, {"image": RESULT_URL}]
    loopback.queue(
        Fixture.json(
            {
                "output": {
                    "choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": content}}]
                },
                "usage": {"width": 1328, "height": 1328, "image_count": 1},
                "request_id": "req-sync",
            }
        )
    )

    submitted = await provider.submit(request(model=model, width=1000, height=1000))

    [sent] = loopback.requests
    assert (sent.method, sent.path) == ("POST", MULTIMODAL)
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert "x-dashscope-async" not in sent.headers  # the documented call is synchronous
    assert sent.json() == {
        "model": model,
        "input": {"messages": [{"role": "user", "content": [{"text": PROMPT}]}]},
        "parameters": parameters,
    }
    assert submitted.task_id == FINISHED_TASK_PREFIX + RESULT_URL
    assert await provider.poll(submitted.task_id) == TaskPoll(status="succeeded", image_url=RESULT_URL)
    assert await provider.cancel(submitted.task_id) is False
    assert len(loopback.requests) == 1  # neither poll nor cancel asked DashScope anything


@pytest.mark.parametrize(
    ("model", "answer"),
    [
        ("qwen-image-plus", {"output": {"task_status": "PENDING"}, "request_id": "r"}),
        ("qwen-image-max", {"output": {"choices": []}, "request_id": "r"}),
    ],
)
async def test_a_success_answer_without_what_it_documents_is_unavailable(
    provider: DashScopeProvider, loopback: Loopback, model: str, answer: dict[str, Any]
) -> None:
    loopback.queue(Fixture.json(answer))

    with pytest.raises(ProviderUnavailable) as failed:
        await provider.submit(request(model=model))

    assert failed.value.code == "MalformedResponse"


# --- poll --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider_status", "status"), [("PENDING", "pending"), ("RUNNING", "running"), ("CANCELED", "canceled")]
)
async def test_poll_reports_a_task_in_progress_or_canceled(
    provider: DashScopeProvider, loopback: Loopback, provider_status: str, status: TaskStatus
) -> None:
    loopback.queue(task(provider_status, submit_time="2025-02-21 17:56:31.786"))

    assert await provider.poll("task/1") == TaskPoll(status=status)
    [sent] = loopback.requests
    assert (sent.method, sent.path) == ("GET", "/api/v1/tasks/task%2F1")
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert "x-dashscope-async" not in sent.headers


async def test_poll_of_a_succeeded_task_gives_its_first_result_url(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    results = [{"url": RESULT_URL, "orig_prompt": PROMPT, "actual_prompt": PROMPT}, {"url": RESULT_URL + "2"}]
    loopback.queue(task("SUCCEEDED", results=results, task_metrics={"TOTAL": 1, "SUCCEEDED": 1, "FAILED": 0}))

    assert await provider.poll("t-1") == TaskPoll(status="succeeded", image_url=RESULT_URL)


async def test_poll_of_a_failed_task_gives_its_code_and_message(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    loopback.queue(task("FAILED", code="InvalidParameter", message="size must be one of the supported sizes"))

    assert await provider.poll("t-1") == TaskPoll(
        status="failed", code="InvalidParameter", message="size must be one of the supported sizes"
    )


@pytest.mark.parametrize(
    "answer",
    [
        task("FAILED", code="DataInspectionFailed", message="Output data may contain inappropriate content."),
        task("SUCCEEDED", results=[{"code": "DataInspectionFailed", "message": "Output data may contain ..."}]),
    ],
)
async def test_a_task_stopped_by_content_moderation_is_refused(
    provider: DashScopeProvider, loopback: Loopback, answer: Fixture
) -> None:
    loopback.queue(answer)

    with pytest.raises(ContentRefused) as refused:
        await provider.poll("t-1")

    assert refused.value.code == "DataInspectionFailed"
    assert not refused.value.retryable
    assert "req-poll" in refused.value.message


async def test_poll_of_a_succeeded_task_without_an_image_is_failed(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    loopback.queue(task("SUCCEEDED", results=[]))

    polled = await provider.poll("t-1")

    assert (polled.status, polled.code, polled.image_url) == ("failed", "NoResult", None)


async def test_poll_answered_with_an_undocumented_status_is_unavailable(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    loopback.queue(task("SUSPENDED"))

    with pytest.raises(ProviderUnavailable) as failed:
        await provider.poll("t-1")

    assert failed.value.code == "MalformedResponse"


async def test_poll_of_an_unknown_task_is_failed_as_expired(provider: DashScopeProvider, loopback: Loopback) -> None:
    loopback.queue(task("UNKNOWN"))

    polled = await provider.poll("t-1")

    assert (polled.status, polled.code, polled.image_url) == ("failed", "UNKNOWN", None)
    assert "expire" in polled.message


# --- fetch -------------------------------------------------------------------------------------------------


async def test_fetch_returns_the_png_and_sends_no_api_key_to_the_result_host(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    png = image_bytes("PNG")
    loopback.queue(Fixture(status=200, headers={"content-type": "image/png"}, body=png))

    fetched = await provider.fetch(f"{loopback.base_url}/1d/ab/result.png?Expires=1700000000&Signature=abc")

    assert Image.open(io.BytesIO(fetched)).tobytes() == Image.open(io.BytesIO(png)).tobytes()
    [sent] = loopback.requests
    assert (sent.method, sent.path, sent.query["Signature"]) == ("GET", "/1d/ab/result.png", ["abc"])
    assert "authorization" not in sent.headers


@pytest.mark.parametrize(
    ("mode", "content_type"),
    [("RGB", "image/jpeg"), ("RGB", "application/octet-stream"), ("CMYK", "image/jpeg")],
)
async def test_fetch_reencodes_a_jpeg_as_png(
    provider: DashScopeProvider, loopback: Loopback, mode: str, content_type: str
) -> None:
    jpeg = io.BytesIO()
    Image.open(io.BytesIO(image_bytes("PNG", (80, 60)))).convert(mode).save(jpeg, format="JPEG")
    loopback.queue(Fixture(status=200, headers={"content-type": content_type}, body=jpeg.getvalue()))

    fetched = await provider.fetch(f"{loopback.base_url}/result.jpg")

    assert fetched.startswith(b"\x89PNG\r\n\x1a\n")
    assert Image.open(io.BytesIO(fetched)).size == (80, 60)


async def test_fetch_refuses_a_result_larger_than_the_limit(http: httpx.AsyncClient, loopback: Loopback) -> None:
    provider = DashScopeProvider(http, api_key=KEY, base_url=loopback.base_url, max_image_bytes=1000)
    loopback.queue(Fixture(status=200, headers={"content-type": "image/png"}, body=image_bytes("PNG", (200, 200))))

    with pytest.raises(InvalidImageRequest) as refused:
        await provider.fetch(f"{loopback.base_url}/result.png")

    assert (refused.value.code, refused.value.retryable) == ("ResultTooLarge", False)


@pytest.mark.parametrize(
    ("content_type", "body"),
    [("text/html", b"<html>captive portal</html>"), ("image/png", b"\x89PNG\r\n\x1a\n but not really a PNG")],
)
async def test_fetch_refuses_what_is_not_an_image(
    provider: DashScopeProvider, loopback: Loopback, content_type: str, body: bytes
) -> None:
    loopback.queue(Fixture(status=200, headers={"content-type": content_type}, body=body))

    with pytest.raises(InvalidImageRequest) as refused:
        await provider.fetch(f"{loopback.base_url}/result.png")

    assert (refused.value.code, refused.value.retryable) == ("ResultNotImage", False)


async def test_fetch_of_an_expired_result_url_is_not_an_auth_failure(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    xml = b"<Error><Code>AccessDenied</Code><Message>Request has expired.</Message></Error>"
    loopback.queue(Fixture(status=403, headers={"content-type": "application/xml"}, body=xml))

    with pytest.raises(ImageProviderError) as failed:
        await provider.fetch(f"{loopback.base_url}/result.png")

    assert type(failed.value) is InvalidImageRequest
    assert (failed.value.code, failed.value.status, failed.value.retryable) == ("ResultUnavailable", 403, False)


@pytest.mark.parametrize(
    ("status", "headers", "error", "retry_after"),
    [(503, {}, ProviderUnavailable, None), (429, {"Retry-After": "3"}, ProviderThrottled, 3.0)],
)
async def test_fetch_from_a_failing_or_busy_result_host_is_retryable(
    provider: DashScopeProvider,
    loopback: Loopback,
    status: int,
    headers: dict[str, str],
    error: type[ImageProviderError],
    retry_after: float | None,
) -> None:
    loopback.queue(Fixture(status=status, headers=headers, body=b""))

    with pytest.raises(ImageProviderError) as failed:
        await provider.fetch(f"{loopback.base_url}/result.png")

    assert type(failed.value) is error
    assert (failed.value.status, failed.value.retry_after, failed.value.retryable) == (status, retry_after, True)


async def test_fetch_refuses_a_url_that_is_not_http(provider: DashScopeProvider, loopback: Loopback) -> None:
    with pytest.raises(InvalidImageRequest):
        await provider.fetch("file:///etc/passwd")

    assert loopback.requests == []


# --- cancel ------------------------------------------------------------------------------------------------


async def test_cancel_of_a_pending_task(provider: DashScopeProvider, loopback: Loopback) -> None:
    loopback.queue(Fixture.json({"request_id": "req-cancel"}))

    assert await provider.cancel("t-1") is True
    [sent] = loopback.requests
    assert (sent.method, sent.path) == ("POST", "/api/v1/tasks/t-1/cancel")
    assert sent.headers["authorization"] == f"Bearer {KEY}"


async def test_cancel_of_a_task_that_is_no_longer_pending_is_false(
    provider: DashScopeProvider, loopback: Loopback
) -> None:
    loopback.queue(failure(400, "UnsupportedOperation", "The operation is unsupported on the referee object."))

    assert await provider.cancel("t-1") is False


async def test_cancel_with_a_rejected_key_still_raises(provider: DashScopeProvider, loopback: Loopback) -> None:
    loopback.queue(failure(401, "InvalidApiKey", "Invalid API-key provided."))

    with pytest.raises(ProviderAuthFailed):
        await provider.cancel("t-1")


# --- errors ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "error"),
    [
        (429, "Throttling.RateQuota", ProviderThrottled),
        (429, "Throttling", ProviderThrottled),
        (429, "LimitRequests", ProviderThrottled),
        (429, "Throttling.AllocationQuota", QuotaExhausted),
        (400, "Arrearage", QuotaExhausted),
        (429, "PrepaidBillOverdue", QuotaExhausted),
        (403, "AllocationQuota.FreeTierOnly", QuotaExhausted),
        (400, "DataInspectionFailed", ContentRefused),
        (400, "CustomRoleBlocked", ContentRefused),
        (400, "InvalidParameter", InvalidImageRequest),
        (404, "ModelNotFound", InvalidImageRequest),
        (401, "InvalidApiKey", ProviderAuthFailed),
        (403, "AccessDenied", ProviderAuthFailed),
        (403, "Model.AccessDenied", ProviderAuthFailed),
        (429, "CommodityNotPurchased", ProviderAuthFailed),
        (408, "RequestTimeOut", ProviderUnavailable),
        (500, "InternalError", ProviderUnavailable),
        (503, "ModelUnavailable", ProviderUnavailable),
    ],
)
async def test_every_documented_failure_maps_to_its_error_class_without_a_retry(
    provider: DashScopeProvider, loopback: Loopback, status: int, code: str, error: type[ImageProviderError]
) -> None:
    loopback.queue(failure(status, code, "What DashScope says about it."))

    with pytest.raises(ImageProviderError) as failed:
        await provider.submit(request())

    assert type(failed.value) is error
    assert (failed.value.provider, failed.value.code, failed.value.status) == ("dashscope", code, status)
    assert failed.value.retryable == (error in (ProviderThrottled, ProviderUnavailable))
    for part in (code, "What DashScope says about it.", "req-7f3a"):
        assert part in failed.value.message
    assert len(loopback.requests) == 1  # Temporal retries; the client never does


async def test_a_5xx_without_a_json_body_is_unavailable(provider: DashScopeProvider, loopback: Loopback) -> None:
    loopback.queue(Fixture(status=502, headers={"content-type": "text/html"}, body=b"<html>Bad Gateway</html>"))

    with pytest.raises(ProviderUnavailable) as failed:
        await provider.poll("t-1")

    assert failed.value.status == 502


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "7"}, (7.0, 7.0)),
        ({"Retry-After": "<an HTTP date 120 s from now>"}, (100.0, 121.0)),
        ({}, None),
    ],
)
async def test_a_throttled_call_carries_the_retry_after_hint(
    provider: DashScopeProvider,
    loopback: Loopback,
    headers: dict[str, str],
    expected: tuple[float, float] | None,
) -> None:
    if headers.get("Retry-After", "").startswith("<"):  # made now, not when the tests were collected
        headers = {"Retry-After": email.utils.formatdate(time.time() + 120, usegmt=True)}
    loopback.queue(failure(429, "Throttling.RateQuota", "Requests rate limit exceeded.", headers))

    with pytest.raises(ProviderThrottled) as throttled:
        await provider.poll("t-1")

    retry_after = throttled.value.retry_after
    if expected is None:
        assert retry_after is None
    else:
        assert retry_after is not None and expected[0] <= retry_after <= expected[1]


async def test_a_timeout_is_unavailable(http: httpx.AsyncClient, loopback: Loopback) -> None:
    provider = DashScopeProvider(http, api_key=KEY, base_url=loopback.base_url, timeout=0.2)
    loopback.queue(Fixture(status=200, headers={"content-type": "application/json"}, body=b"{}", stall_before=1.0))

    with pytest.raises(ProviderUnavailable) as failed:
        await provider.submit(request())

    assert "timed out" in failed.value.message
    assert failed.value.retryable


@pytest.mark.parametrize("operation", ["poll", "fetch"])
async def test_a_refused_connection_is_unavailable(http: httpx.AsyncClient, operation: str) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
    provider = DashScopeProvider(http, api_key=KEY, base_url=f"http://127.0.0.1:{port}")

    with pytest.raises(ProviderUnavailable) as failed:
        if operation == "poll":
            await provider.poll("t-1")
        else:
            await provider.fetch(f"http://127.0.0.1:{port}/result.png")

    assert (failed.value.code, failed.value.retryable) == ("ConnectError", True)
