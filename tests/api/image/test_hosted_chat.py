"""Inpainting with a hosted model through the gateway (issue 13): `preferredModel: "qwen-image"` with a mask goes
to DashScope's mask-editing task (`wanx2.1-imageedit`, `description_edit_with_mask`) with the base image and the
mask inline, is polled, and its image comes back through the gateway's own URL (the double's image ignores the
mask, so the Critic may send the Executor again: every attempt is such a task)."""

import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from temporalio.testing import WorkflowEnvironment

from imaging.rendering import decode_image
from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.api.image.test_chat import canvas_url, chat, mask_png
from tests.llm.loopback import Loopback
from tests.workflows.image.dashscope_double import DashScopeDouble, dashscope_settings


@pytest.fixture
async def hosted_gateway(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, loopback: Loopback
) -> AsyncIterator[Gateway]:
    async with running_gateway(env, tmp_path, api_style_store, **dashscope_settings(loopback.base_url)) as running:
        yield running


async def test_inpainting_with_qwen_image_is_a_mask_editing_task_with_the_image_and_mask_inline(
    hosted_gateway: Gateway, loopback: Loopback
) -> None:
    _, session, first = await chat(hosted_gateway, {"text": "生成一只赛博朋克风格的猫", "sessionId": "hosted-edit"})
    base_url = canvas_url(first)
    fake = DashScopeDouble(base_url=loopback.base_url, running_polls=1)
    loopback.responder = fake
    body = {
        "text": "换成机械头盔",
        "sessionId": session,
        "preferredModel": "qwen-image",
        "maskData": {"base64": mask_png((800, 600), (200, 150, 400, 300)), "imageUrl": base_url},
    }

    _, _, events = await chat(hosted_gateway, body)

    assert events[-1].data["data"]["status"] == "completed"
    submits = [r for r in loopback.requests if r.method == "POST"]
    assert submits, "the edit was submitted"
    for submit in submits:  # the Critic may send the Executor again: every attempt is a mask-editing task
        assert submit.path == "/api/v1/services/aigc/image2image/image-synthesis"
        sent = json.loads(submit.body)
        assert sent["model"] == "wanx2.1-imageedit" and sent["input"]["function"] == "description_edit_with_mask"
        mask = decode_image(base64.b64decode(sent["input"]["mask_image_url"].split(",", 1)[1]))
        assert mask.size == (800, 600)
        assert sent["input"]["base_image_url"].startswith("data:image/")
    assert fake.calls["accepted"] == fake.calls["fetch"] == len(submits), "each task polled to its end and copied"
    edited = await hosted_gateway.http.get(urlsplit(canvas_url(events)).path)
    assert edited.status_code == 200 and decode_image(edited.content).format == "PNG"
