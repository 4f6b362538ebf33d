"""The OpenAI Images provider against a loopback server: the generations body, the edits multipart (with the mask
turned into OpenAI's transparent-means-edit form), the size choice, the answer brought back as PNG of the requested
size, and every failure mapped onto `imaging.providers.errors`."""

import base64
import dataclasses
import io
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import numpy as np
import pytest
from PIL import Image

from imaging.image_provider import ImageRequest
from imaging.providers.errors import (
    ContentRefused,
    ImageProviderError,
    InvalidImageRequest,
    ProviderAuthFailed,
    ProviderThrottled,
    ProviderUnavailable,
    QuotaExhausted,
)
from imaging.providers.openai_images import MAX_REFERENCES, OpenAIImagesProvider, nearest_size
from models.image.state import TaskType
from tests.llm.loopback import Fixture, Loopback, RecordedRequest

API_KEY = "sk-test-0123"
REQUEST_ID = "req_7f3a9c"


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


def provider(http: httpx.AsyncClient, loopback: Loopback, **options: Any) -> OpenAIImagesProvider:
    return OpenAIImagesProvider(http, api_key=API_KEY, base_url=f"{loopback.base_url}/v1", **options)


def encoded(image: Image.Image, fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def answer(image: Image.Image, fmt: str = "PNG") -> Fixture:
    """A 200 as the Images API sends it: the image base64-encoded in `data[0].b64_json`."""
    b64 = base64.b64encode(encoded(image, fmt)).decode()
    document = {"created": 1_750_000_000, "data": [{"b64_json": b64}], "size": f"{image.width}x{image.height}"}
    return Fixture.json(document, headers={"x-request-id": REQUEST_ID})


def failure(status: int, error: dict[str, Any], headers: dict[str, str] | None = None) -> Fixture:
    return Fixture.json({"error": error}, status=status, headers={"x-request-id": REQUEST_ID, **(headers or {})})


def gradient(width: int, height: int) -> Image.Image:
    x = np.linspace(0, 255, width, dtype=np.float32)[None, :].repeat(height, 0)
    y = np.linspace(0, 255, height, dtype=np.float32)[:, None].repeat(width, 1)
    return Image.fromarray(np.stack([x, y, 255 - x], axis=-1).astype(np.uint8))


def repaint_mask(width: int, height: int, box: tuple[int, int, int, int]) -> Image.Image:
    """Our mask: mode L, 255 inside `box` (left, top, right, bottom), 0 elsewhere."""
    mask = np.zeros((height, width), dtype=np.uint8)
    left, top, right, bottom = box
    mask[top:bottom, left:right] = 255
    return Image.fromarray(mask)


def request(task_type: TaskType = "text_to_image", **fields: Any) -> ImageRequest:
    defaults: dict[str, Any] = {"prompt": "a lighthouse at dusk", "seed": 7, "width": 1024, "height": 1024}
    return ImageRequest(task_type=task_type, style_strength=0.5, **{**defaults, **fields})


def edit_request(
    task_type: TaskType = "inpainting", width: int = 640, height: int = 480, **fields: Any
) -> ImageRequest:
    base = encoded(gradient(width, height))
    mask = encoded(repaint_mask(width, height, (100, 50, 300, 200))) if task_type == "inpainting" else None
    return request(task_type, width=width, height=height, base_image=base, mask=mask, **fields)


def multipart(recorded: RecordedRequest) -> dict[str, tuple[dict[str, str], bytes]]:
    """The parts of a multipart/form-data body by field name: their headers (lower-cased) and exact bytes."""
    content_type = recorded.headers["content-type"]
    assert content_type.startswith("multipart/form-data; boundary=")
    boundary = content_type.split("boundary=", 1)[1].encode()
    sections = recorded.body.split(b"--" + boundary)
    assert sections[0] == b""
    assert sections[-1] == b"--\r\n"
    parts: dict[str, tuple[dict[str, str], bytes]] = {}
    for section in sections[1:-1]:
        head, _, content = section.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        headers = dict(line.decode().split(": ", 1) for line in head.split(b"\r\n"))
        headers = {name.lower(): value for name, value in headers.items()}
        name = headers["content-disposition"].split('name="', 1)[1].split('"', 1)[0]
        assert name not in parts, f"field {name} sent twice"
        parts[name] = (headers, content.removesuffix(b"\r\n"))
    return parts


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


# --- generations --------------------------------------------------------------------------------------------


async def test_text_to_image_posts_the_documented_body_and_returns_the_decoded_png(
    http: httpx.AsyncClient, loopback: Loopback
) -> None:
    image = gradient(1024, 1024)
    loopback.queue(answer(image))

    png = await provider(http, loopback).generate(request(prompt="赛博朋克风格的城市夜景"))

    [sent] = loopback.requests
    assert (sent.method, sent.path) == ("POST", "/v1/images/generations")
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.headers["content-type"] == "application/json"
    assert sent.json() == {"model": "gpt-image-1", "prompt": "赛博朋克风格的城市夜景", "size": "1024x1024", "n": 1}
    assert png == encoded(image), "a PNG of the requested size comes back byte for byte"


@pytest.mark.parametrize(
    ("width", "height", "size"),
    [
        (1024, 1024, "1024x1024"),
        (512, 512, "1024x1024"),
        (1200, 1000, "1024x1024"),  # 1.2 is nearer 1 than 1.5 (as log ratios)
        (1300, 1000, "1536x1024"),
        (1920, 1080, "1536x1024"),
        (4096, 1024, "1536x1024"),
        (1000, 1300, "1024x1536"),
        (720, 1280, "1024x1536"),
    ],
)
def test_size_is_the_standard_size_nearest_the_aspect_ratio(width: int, height: int, size: str) -> None:
    assert nearest_size(request(width=width, height=height)) == size


async def test_text_to_image_of_another_size_is_cover_cropped_to_the_requested_size(
    http: httpx.AsyncClient, loopback: Loopback
) -> None:
    image = Image.new("RGB", (1536, 1024), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, 60, 1024))  # a red strip the centred 4:3 crop cuts away
    loopback.queue(answer(image))

    png = await provider(http, loopback).generate(request(width=800, height=600))

    assert loopback.requests[0].json()["size"] == "1536x1024"
    result = decoded(png)
    assert (result.format, result.size) == ("PNG", (800, 600))
    pixels = np.asarray(result.convert("RGB")).astype(int)
    assert pixels[:, :, 0].max() < 20, "the red strip outside the centred crop is gone"
    assert pixels[:, :, 2].min() > 235


async def test_a_jpeg_answer_is_returned_as_png(http: httpx.AsyncClient, loopback: Loopback) -> None:
    loopback.queue(answer(gradient(1024, 1024), fmt="JPEG"))

    png = await provider(http, loopback).generate(request())

    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert decoded(png).size == (1024, 1024)


async def test_references_go_to_the_edits_endpoint_as_image_files_and_the_answer_is_cover_cropped(
    http: httpx.AsyncClient, loopback: Loopback
) -> None:
    loopback.queue(answer(gradient(1024, 1536)))
    photo = encoded(gradient(300, 200), "JPEG")
    second = encoded(gradient(200, 200))

    png = await provider(http, loopback).generate(request(width=768, height=1024, references=[photo, second]))

    [sent] = loopback.requests
    assert (sent.method, sent.path) == ("POST", "/v1/images/edits")
    boundary = sent.headers["content-type"].split("boundary=", 1)[1].encode()
    sections = [section for section in sent.body.split(b"--" + boundary)[1:-1]]
    images = [section for section in sections if b'name="image[]"' in section]
    assert len(images) == 2, "each reference is one image[] part"
    sent_images = [decoded(section.partition(b"\r\n\r\n")[2].removesuffix(b"\r\n")) for section in images]
    assert [image.format for image in sent_images] == ["PNG", "PNG"], "the JPEG reference is sent as PNG"
    assert [image.size for image in sent_images] == [(300, 200), (200, 200)]
    assert any(b'name="prompt"' in section and b"a lighthouse at dusk" in section for section in sections)
    assert decoded(png).size == (768, 1024)


async def test_a_reference_that_cannot_be_decoded_is_refused_without_a_call(
    http: httpx.AsyncClient, loopback: Loopback
) -> None:
    with pytest.raises(InvalidImageRequest) as refused:
        await provider(http, loopback).generate(request(references=[b"not an image"]))

    assert refused.value.code == "invalid_reference" and loopback.requests == []


@pytest.mark.parametrize(
    ("configured", "preferred", "taken"),
    [("gpt-image-1", None, MAX_REFERENCES), ("dall-e-3", None, 0), ("dall-e-3", "gpt-image-1", MAX_REFERENCES)],
)
def test_only_a_gpt_image_model_takes_references(
    http: httpx.AsyncClient, loopback: Loopback, configured: str, preferred: str | None, taken: int
) -> None:
    assert provider(http, loopback, model=configured).max_references(preferred) == taken


@pytest.mark.parametrize(
    ("preferred", "sent"),
    [(None, "gpt-image-1"), ("gpt-image-1-mini", "gpt-image-1-mini"), ("qwen-image", "gpt-image-1")],
)
async def test_model_is_the_preferred_gpt_image_model_or_the_configured_one(
    http: httpx.AsyncClient, loopback: Loopback, preferred: str | None, sent: str
) -> None:
    loopback.queue(answer(gradient(1024, 1024)))

    await provider(http, loopback).generate(request(model=preferred))

    assert loopback.requests[0].json()["model"] == sent


# --- edits --------------------------------------------------------------------------------------------------


async def test_inpainting_posts_image_mask_and_fields_as_multipart(http: httpx.AsyncClient, loopback: Loopback) -> None:
    loopback.queue(answer(gradient(1536, 1024)))
    edit = edit_request(prompt="把左上角换成一只猫")

    png = await provider(http, loopback, model="gpt-image-1").generate(edit)

    [sent] = loopback.requests
    assert (sent.method, sent.path) == ("POST", "/v1/images/edits")
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    parts = multipart(sent)
    assert set(parts) == {"model", "prompt", "size", "n", "image", "mask"}
    assert {name: parts[name][1].decode() for name in ("model", "prompt", "size", "n")} == {
        "model": "gpt-image-1",
        "prompt": "把左上角换成一只猫",
        "size": "1536x1024",  # 640x480 is 4:3, nearer 3:2 than 1:1
        "n": "1",
    }
    image_headers, image = parts["image"]
    assert 'filename="image.png"' in image_headers["content-disposition"]
    assert image_headers["content-type"] == "image/png"
    assert image == edit.base_image, "a PNG base image is sent as it is"
    assert decoded(png).size == (640, 480), "the edit comes back at the base image's size"


async def test_inpainting_mask_is_transparent_exactly_where_ours_repaints(
    http: httpx.AsyncClient, loopback: Loopback
) -> None:
    loopback.queue(answer(gradient(1536, 1024)))
    edit = edit_request()

    await provider(http, loopback).generate(edit)

    mask_headers, mask_png = multipart(loopback.requests[0])["mask"]
    assert 'filename="mask.png"' in mask_headers["content-disposition"]
    assert mask_headers["content-type"] == "image/png"
    mask = decoded(mask_png)
    assert (mask.format, mask.mode, mask.size) == ("PNG", "RGBA", (640, 480))
    alpha = np.asarray(mask)[:, :, 3]
    ours = np.asarray(repaint_mask(640, 480, (100, 50, 300, 200)))
    assert set(np.unique(alpha)) == {0, 255}
    assert np.array_equal(alpha == 0, ours == 255)


async def test_inpainting_mask_of_another_size_is_scaled_to_the_image(
    http: httpx.AsyncClient, loopback: Loopback
) -> None:
    loopback.queue(answer(gradient(1536, 1024)))
    edit = edit_request().model_copy(update={"mask": encoded(repaint_mask(320, 240, (0, 0, 160, 120)))})

    await provider(http, loopback).generate(edit)

    alpha = np.asarray(decoded(multipart(loopback.requests[0])["mask"][1]))[:, :, 3]
    assert alpha.shape == (480, 640)
    assert (alpha[:240, :320] == 0).all(), "the top-left quarter is to be edited"
    assert (alpha[240:, :] == 255).all()
    assert (alpha[:, 320:] == 255).all()


async def test_a_jpeg_base_image_is_sent_as_png(http: httpx.AsyncClient, loopback: Loopback) -> None:
    loopback.queue(answer(gradient(1536, 1024)))
    edit = edit_request().model_copy(update={"base_image": encoded(gradient(640, 480), "JPEG")})

    await provider(http, loopback).generate(edit)

    image = decoded(multipart(loopback.requests[0])["image"][1])
    assert (image.format, image.size) == ("PNG", (640, 480))


async def test_parameter_adjustment_is_an_edit_without_a_mask(http: httpx.AsyncClient, loopback: Loopback) -> None:
    loopback.queue(answer(gradient(1024, 1536)))
    edit = edit_request("parameter_adjustment", width=600, height=900, prompt="更明亮一些")

    png = await provider(http, loopback).generate(edit)

    [sent] = loopback.requests
    assert sent.path == "/v1/images/edits"
    parts = multipart(sent)
    assert set(parts) == {"model", "prompt", "size", "n", "image"}
    assert parts["size"][1] == b"1024x1536"
    assert parts["prompt"][1].decode() == "更明亮一些"
    assert parts["image"][1] == edit.base_image
    assert decoded(png).size == (600, 900)


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        (request("inpainting", mask=encoded(repaint_mask(8, 8, (0, 0, 4, 4)))), "missing_base_image"),
        (request("parameter_adjustment"), "missing_base_image"),
        (edit_request().model_copy(update={"mask": None}), "missing_mask"),
        (edit_request().model_copy(update={"mask": b"not an image"}), "invalid_mask"),
        (edit_request().model_copy(update={"base_image": b"not an image"}), "invalid_base_image"),
    ],
)
async def test_an_edit_that_cannot_be_sent_is_refused_without_a_call(
    http: httpx.AsyncClient, loopback: Loopback, edit: ImageRequest, code: str
) -> None:
    with pytest.raises(InvalidImageRequest) as caught:
        await provider(http, loopback).generate(edit)

    assert (caught.value.code, caught.value.provider, caught.value.retryable) == (code, "openai-images", False)
    assert loopback.requests == []


# --- errors -------------------------------------------------------------------------------------------------

ERRORS: list[tuple[str, Fixture, type[ImageProviderError], str, bool]] = [
    (
        "429 insufficient_quota",
        failure(
            429,
            {
                "message": "You exceeded your current quota, please check your plan and billing details.",
                "type": "insufficient_quota",
                "param": None,
                "code": "insufficient_quota",
            },
            {"retry-after": "20"},
        ),
        QuotaExhausted,
        "insufficient_quota",
        False,
    ),
    (
        "429 quota named by type only",
        failure(429, {"message": "You exceeded your current quota.", "type": "insufficient_quota", "code": None}),
        QuotaExhausted,
        "insufficient_quota",
        False,
    ),
    (
        "400 billing hard limit",
        failure(
            400,
            {
                "message": "Billing hard limit has been reached",
                "type": "invalid_request_error",
                "param": None,
                "code": "billing_hard_limit_reached",
            },
        ),
        QuotaExhausted,
        "billing_hard_limit_reached",
        False,
    ),
    (
        "429 rate limit",
        failure(
            429,
            {
                "message": "Rate limit reached for gpt-image-1 on images per minute (IPM): Limit 5, Used 5.",
                "type": "requests",
                "code": "rate_limit_exceeded",
            },
        ),
        ProviderThrottled,
        "rate_limit_exceeded",
        True,
    ),
    (
        "400 moderation_blocked",
        failure(
            400,
            {
                "message": "Your request was rejected by the safety system. safety_violations=[violence].",
                "type": "image_generation_user_error",
                "param": None,
                "code": "moderation_blocked",
            },
        ),
        ContentRefused,
        "moderation_blocked",
        False,
    ),
    (
        "400 content_policy_violation",
        failure(
            400,
            {
                "message": "Your request was rejected as a result of our safety system.",
                "type": "invalid_request_error",
                "param": None,
                "code": "content_policy_violation",
            },
        ),
        ContentRefused,
        "content_policy_violation",
        False,
    ),
    (
        "400 invalid size",
        failure(
            400,
            {
                "message": "Invalid value: '999x999'. Supported values are: '1024x1024', '1024x1536', '1536x1024'.",
                "type": "invalid_request_error",
                "param": "size",
                "code": "invalid_value",
            },
        ),
        InvalidImageRequest,
        "invalid_value",
        False,
    ),
    (
        "404 unknown model",
        failure(
            404,
            {
                "message": "The model `gpt-image-9` does not exist.",
                "type": "invalid_request_error",
                "code": "model_not_found",
            },
        ),
        InvalidImageRequest,
        "model_not_found",
        False,
    ),
    (
        "401 wrong key",
        failure(
            401,
            {
                "message": "Incorrect API key provided: sk-test-****0123.",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            },
        ),
        ProviderAuthFailed,
        "invalid_api_key",
        False,
    ),
    (
        "403 region",
        failure(
            403,
            {
                "message": "Country, region, or territory not supported",
                "type": "request_forbidden",
                "code": "unsupported_country_region_territory",
            },
        ),
        ProviderAuthFailed,
        "unsupported_country_region_territory",
        False,
    ),
    (
        "408 request timeout",
        failure(408, {"message": "Request timed out.", "type": "server_error", "code": "timeout"}),
        ProviderUnavailable,
        "timeout",
        True,
    ),
    (
        "500 server error",
        failure(
            500,
            {"message": "The server had an error while processing your request.", "type": "server_error", "code": None},
        ),
        ProviderUnavailable,
        "server_error",
        True,
    ),
    (
        "503 overloaded",
        failure(503, {"message": "The engine is currently overloaded, please try again later", "type": "server_error"}),
        ProviderUnavailable,
        "server_error",
        True,
    ),
]


@pytest.mark.parametrize("task_type", ["text_to_image", "inpainting", "parameter_adjustment"])
@pytest.mark.parametrize(
    ("fixture", "error_class", "code", "retryable"),
    [case[1:] for case in ERRORS],
    ids=[case[0] for case in ERRORS],
)
async def test_errors_are_mapped_by_status_and_code(
    http: httpx.AsyncClient,
    loopback: Loopback,
    task_type: TaskType,
    fixture: Fixture,
    error_class: type[ImageProviderError],
    code: str,
    retryable: bool,
) -> None:
    loopback.queue(fixture)
    image_request = request() if task_type == "text_to_image" else edit_request(task_type)

    with pytest.raises(ImageProviderError) as caught:
        await provider(http, loopback).generate(image_request)

    error = caught.value
    assert type(error) is error_class
    assert (error.provider, error.status, error.code, error.retryable) == (
        "openai-images",
        fixture.status,
        code,
        retryable,
    )
    openai_message = json.loads(fixture.body)["error"]["message"]
    assert openai_message in error.message
    assert REQUEST_ID in error.message
    assert len(loopback.requests) == 1, "the client never retries: Temporal does"


@pytest.mark.parametrize(
    ("headers", "retry_after"),
    [({"retry-after": "7"}, 7.0), ({"retry-after-ms": "1500", "retry-after": "2"}, 1.5), ({}, None)],
)
async def test_throttling_carries_the_retry_after_hint(
    http: httpx.AsyncClient, loopback: Loopback, headers: dict[str, str], retry_after: float | None
) -> None:
    loopback.queue(
        failure(429, {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}, headers)
    )

    with pytest.raises(ProviderThrottled) as caught:
        await provider(http, loopback).generate(request())

    assert caught.value.retry_after == retry_after


async def test_a_non_json_gateway_error_is_unavailable_with_its_text(
    http: httpx.AsyncClient, loopback: Loopback
) -> None:
    loopback.queue(Fixture(status=502, headers={"content-type": "text/html"}, body=b"<html>502 Bad Gateway</html>"))

    with pytest.raises(ProviderUnavailable) as caught:
        await provider(http, loopback).generate(request())

    assert (caught.value.status, caught.value.code) == (502, "")
    assert "502 Bad Gateway" in caught.value.message
    assert "x-request-id none" in caught.value.message


async def test_a_timeout_is_unavailable(http: httpx.AsyncClient, loopback: Loopback) -> None:
    loopback.queue(dataclasses.replace(answer(gradient(8, 8)), stall_before=1.0))

    with pytest.raises(ProviderUnavailable) as caught:
        await provider(http, loopback, timeout=0.2).generate(request())

    assert (caught.value.code, caught.value.status, caught.value.retryable) == ("ReadTimeout", None, True)
    assert "timed out" in caught.value.message


async def test_a_transport_error_is_unavailable(http: httpx.AsyncClient) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again before the call: nothing listens there
    images = OpenAIImagesProvider(http, api_key=API_KEY, base_url=f"http://127.0.0.1:{port}/v1")

    with pytest.raises(ProviderUnavailable) as caught:
        await images.generate(request())

    assert (caught.value.code, caught.value.status, caught.value.retryable) == ("ConnectError", None, True)
    assert "ConnectError" in caught.value.message


@pytest.mark.parametrize(
    ("document", "code"),
    [
        ({"created": 1, "data": []}, "malformed_response"),
        ({"created": 1, "data": None}, "malformed_response"),
        ({"created": 1, "data": [{"url": "https://example.invalid/x.png"}]}, "malformed_response"),
        ({"created": 1, "data": [{"b64_json": "%%% not base64 %%%"}]}, "malformed_response"),
        ({"created": 1, "data": [{"b64_json": base64.b64encode(b"not an image").decode()}]}, "malformed_image"),
    ],
)
async def test_a_200_without_a_readable_image_is_unavailable(
    http: httpx.AsyncClient, loopback: Loopback, document: dict[str, Any], code: str
) -> None:
    loopback.queue(Fixture.json(document, headers={"x-request-id": REQUEST_ID}))

    with pytest.raises(ProviderUnavailable) as caught:
        await provider(http, loopback).generate(request())

    assert caught.value.code == code


async def test_a_missing_api_key_fails_without_a_call(http: httpx.AsyncClient, loopback: Loopback) -> None:
    images = OpenAIImagesProvider(http, api_key="", base_url=f"{loopback.base_url}/v1")

    with pytest.raises(ProviderAuthFailed) as caught:
        await images.generate(request())

    assert caught.value.code == "missing_api_key"
    assert loopback.requests == []
