"""ValidateInput checks text and image URLs, and fetches an image named by URL once (only where external images are
allowed); masks were validated where their bytes arrived (the gateway)."""

from pathlib import Path

import httpx
import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.image.validation import InputValidator
from imaging.fetch import GuardedImageFetcher
from imaging.rendering import encode_png, render_text_to_image
from models.blobs import ImageRef
from models.image.nodes import ValidateRequest
from models.image.state import MaskRef, UserInput
from stores.blob_store import BlobStore, LocalBlobStore

MASK_KEY = f"masks/{'0' * 64}.png"


@pytest.fixture
def blobs(tmp_path: Path) -> BlobStore:
    return LocalBlobStore(tmp_path / "blobs")


async def test_a_mask_is_not_read_back_to_be_checked_again(blobs: BlobStore) -> None:
    """Keys of blobs that do not exist pass: the node never reads the mask (the gateway checked its bytes)."""
    image = ImageRef(blob_key=f"images/{'2' * 64}.png")
    mask = MaskRef(blob_key=MASK_KEY, paths_key=f"paths/{'1' * 64}.json", image=image)
    request = ValidateRequest(user_input=UserInput(text="换成花", mask_data=mask))

    validated = await ActivityEnvironment().run(InputValidator(blobs).validate_input, request)

    assert validated.user_input.mask_data == mask


@pytest.mark.parametrize(
    ("user_input", "code"),
    [
        (UserInput(text="  "), "INVALID_INPUT_EMPTY"),
        (UserInput(text="x", mask_data=MaskRef(image=ImageRef(url="https://x.test/a.png"))), "MASK_INVALID_FORMAT"),
        (
            UserInput(text="x", mask_data=MaskRef(blob_key=MASK_KEY, image=ImageRef(url="ftp://x/y"))),
            "IMAGE_URL_INVALID",
        ),
        (
            UserInput(text="x", mask_data=MaskRef(blob_key=MASK_KEY, image=ImageRef(url="https://x.test/a.png"))),
            "IMAGE_URL_FORBIDDEN",  # external images are not allowed: no fetcher
        ),
    ],
)
async def test_bad_input_fails_for_good_with_its_code(user_input: UserInput, code: str, blobs: BlobStore) -> None:
    with pytest.raises(ApplicationError) as failure:
        await ActivityEnvironment().run(InputValidator(blobs).validate_input, ValidateRequest(user_input=user_input))

    assert failure.value.type == code and failure.value.non_retryable


async def test_an_allowed_external_image_is_fetched_once_and_later_nodes_get_its_key(blobs: BlobStore) -> None:
    png = encode_png(render_text_to_image("猫", seed=1, width=64, height=48, style_strength=0.5))
    requests: list[httpx.Request] = []

    def image_host(request: httpx.Request) -> httpx.Response:  # stands in for the user's image host
        requests.append(request)
        return httpx.Response(200, content=png, headers={"content-type": "image/png"})

    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    async with httpx.AsyncClient(transport=httpx.MockTransport(image_host)) as http:
        fetcher = GuardedImageFetcher(http, max_bytes=1 << 20, timeout_seconds=2, resolve=resolve)
        mask = MaskRef(blob_key=MASK_KEY, image=ImageRef(url="https://images.example/cat.png?v=1"))
        request = ValidateRequest(user_input=UserInput(text="换成花", mask_data=mask))
        validated = await ActivityEnvironment().run(InputValidator(blobs, fetcher).validate_input, request)

    image = validated.user_input.mask_data.image if validated.user_input.mask_data else None
    assert image is not None and image.url is None and image.blob_key is not None
    assert blobs.get(image.blob_key) == png
    assert [(str(r.url), r.headers["host"]) for r in requests] == [
        ("https://93.184.216.34/cat.png?v=1", "images.example")  # the vetted address, the URL's host name
    ]
