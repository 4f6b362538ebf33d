"""The simulator's image model through this project's OpenAI Images client (`imaging/providers/openai_images.py`,
as `IMAGE_PROVIDER_DEFAULT=openai` builds it): the image it draws, the profile's pace, the log, a transport quirk,
and a request it refuses."""

import time

import httpx
import pytest

from imaging.image_provider import ImageRequest
from imaging.providers.errors import ProviderThrottled
from imaging.providers.openai_images import OpenAIImagesProvider
from imaging.rendering import decode_image
from tests.simulator.profiles import Profile
from tests.simulator.quirks import Quirk, QuirkRule
from tests.simulator.server import Simulator


def provider(simulator: Simulator, http: httpx.AsyncClient) -> OpenAIImagesProvider:
    return OpenAIImagesProvider(http, api_key="test-key", base_url=f"{simulator.base_url}/v1")


def cat(width: int = 800, height: int = 600) -> ImageRequest:
    return ImageRequest(
        task_type="text_to_image", prompt="一只赛博朋克风格的猫", seed=1, width=width, height=height, style_strength=0.5
    )


async def test_an_image_comes_back_at_the_size_asked_after_the_profiles_image_time(
    simulator: Simulator, http: httpx.AsyncClient
) -> None:
    simulator.profile = Profile("images", 0.0, float("inf"), image_seconds=0.4)

    started = time.monotonic()
    png = await provider(simulator, http).generate(cat())
    took = time.monotonic() - started

    image = decode_image(png)
    assert image.size == (800, 600) and len(image.convert("L").getcolors(256) or []) > 50, "a picture, not a flat fill"
    assert took >= 0.4
    (logged,) = simulator.log
    assert logged.protocol == "openai_images" and logged.kind == "image" and logged.status == 200
    assert logged.request.last_user_text == "一只赛博朋克风格的猫" and logged.body["size"] == "1536x1024"
    assert logged.generation_seconds == pytest.approx(0.4)
    assert logged.ended is not None and logged.ended - logged.started >= 0.4


async def test_a_rate_limited_image_is_a_throttle_with_the_wait_it_names(
    simulator: Simulator, http: httpx.AsyncClient
) -> None:
    simulator.quirks, simulator.retry_after = [QuirkRule(Quirk.RATE_LIMIT, first=1)], 3

    with pytest.raises(ProviderThrottled) as raised:
        await provider(simulator, http).generate(cat())

    assert raised.value.retry_after == 3 and simulator.log[0].status == 429
    assert decode_image(await provider(simulator, http).generate(cat(512, 512))).size == (512, 512)


async def test_a_request_without_a_prompt_is_refused_and_not_logged(
    simulator: Simulator, http: httpx.AsyncClient
) -> None:
    answer = await http.post(f"{simulator.base_url}/v1/images/generations", json={"size": "1024x1024"})

    assert answer.status_code == 400 and "prompt" in answer.json()["error"]["message"]
    assert simulator.log == []
