"""ValidateInput checks text and image URLs; masks were validated where their bytes arrived (the gateway)."""

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.image.validation import InputValidator
from models.blobs import ImageRef
from models.image.nodes import ValidateRequest
from models.image.state import MaskRef, UserInput


async def test_a_mask_is_not_read_back_to_be_checked_again() -> None:
    """Keys of blobs that do not exist pass: the node never reads the mask (the gateway checked its bytes)."""
    mask = MaskRef(
        blob_key=f"masks/{'0' * 64}.png", paths_key=f"paths/{'1' * 64}.json", image=ImageRef(url="https://x.test/a.png")
    )
    request = ValidateRequest(user_input=UserInput(text="换成花", mask_data=mask))

    validated = await ActivityEnvironment().run(InputValidator().validate_input, request)

    assert validated.user_input.mask_data == mask


@pytest.mark.parametrize(
    ("user_input", "code"),
    [
        (UserInput(text="  "), "INVALID_INPUT_EMPTY"),
        (UserInput(text="x", mask_data=MaskRef(image=ImageRef(url="https://x.test/a.png"))), "MASK_INVALID_FORMAT"),
        (
            UserInput(text="x", mask_data=MaskRef(blob_key=f"masks/{'0' * 64}.png", image=ImageRef(url="ftp://x/y"))),
            "IMAGE_URL_INVALID",
        ),
    ],
)
async def test_bad_input_fails_for_good_with_its_code(user_input: UserInput, code: str) -> None:
    with pytest.raises(ApplicationError) as failure:
        await ActivityEnvironment().run(InputValidator().validate_input, ValidateRequest(user_input=user_input))

    assert failure.value.type == code and failure.value.non_retryable
