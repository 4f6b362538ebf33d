"""`POST /v1/content/runs` (issue 9 item 8): the run's events as SSE with `X-Run-Id`, reference images by the
gateway's own URLs, the finished post with image URLs that serve PNGs, the generic run API on the same run, and
clear errors for a request that cannot start one; a deployment whose default image API is DashScope draws the
post's images there."""

import io
from pathlib import Path

from PIL import Image
from temporalio.testing import WorkflowEnvironment

from imaging.rendering import encode_png, render_text_to_image
from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.llm.loopback import Loopback
from tests.sse import parse_sse
from tests.workflows.image.dashscope_double import DashScopeDouble, dashscope_settings

TOPIC = "打工人的咖啡续命指南"
NOTES = ["2025 年职场调查：67% 的上班族每天喝至少一杯咖啡。", "营养师建议：每天咖啡因不超过 400 毫克。"]


async def upload(gateway: Gateway, prompt: str) -> str:
    png = encode_png(render_text_to_image(prompt, seed=3, width=320, height=240, style_strength=0.9))
    response = await gateway.http.post("/v1/blobs", content=png, headers={"content-type": "image/png"})
    assert response.status_code == 201, response.text
    url: str = response.json()["url"]
    return url


async def test_a_content_run_streams_its_events_and_serves_the_post(gateway: Gateway) -> None:
    reference = await upload(gateway, "水彩 花园")

    response = await gateway.http.post(
        "/v1/content/runs",
        json={"topic": TOPIC, "platform": "xiaohongshu", "evidence": NOTES, "referenceImages": [reference]},
    )

    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    run_id = response.headers["x-run-id"]
    events = parse_sse(response.text)
    types = [event.event for event in events]
    assert types[0] == "supervisor_decision" and types[-2:] == ["post_ready", "done"]
    assert {"agent_started", "tool_call", "tool_result", "image_generated", "review_result"} <= set(types)
    post = (await gateway.http.get(f"/v1/content/runs/{run_id}/post")).json()
    assert post["complete"] and post["title"] and post["imageUrls"]
    for url in post["imageUrls"]:
        image = await gateway.http.get(url)
        assert image.status_code == 200 and Image.open(io.BytesIO(image.content)).format == "PNG"
    view = (await gateway.http.get(f"/v1/runs/{run_id}")).json()
    assert view["workflowType"] == "ContentSupervisorWorkflow" and view["status"] == "completed"
    state = view["state"]
    assert state["referenceAnalyses"][0]["palette"] and state["evidencePack"]["fromNotes"] >= 1
    assert all(url.startswith("http") for url in state["generatedImageAssetIds"].values())


async def test_the_generic_run_api_starts_a_content_run(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/runs", json={"workflow": "ContentSupervisorWorkflow", "input": {"topic": TOPIC, "platform": "weibo"}}
    )

    assert response.status_code == 201, response.text
    run_id = response.json()["runId"]
    events = parse_sse((await gateway.http.get(f"/v1/runs/{run_id}/events")).text)
    assert events[-1].event == "done"
    graph = (await gateway.http.get("/v1/workflows/ContentSupervisorWorkflow/graph")).text
    assert "supervisor_tools" in graph and "image_tools" in graph


async def test_the_post_of_a_run_that_still_works_is_not_ready(gateway: Gateway) -> None:
    response = await gateway.http.post(
        "/v1/runs", json={"workflow": "ContentSupervisorWorkflow", "input": {"topic": TOPIC}}
    )
    run_id = response.json()["runId"]  # no platform: the run waits for the user's answer

    for _ in range(100):
        if (await gateway.http.get(f"/v1/runs/{run_id}")).json()["awaitingInput"]:
            break
    early = await gateway.http.get(f"/v1/content/runs/{run_id}/post")

    assert early.status_code == 409 and early.json()["error"]["code"] == "POST_NOT_READY"
    await gateway.http.post(f"/v1/runs/{run_id}/cancel")


async def test_requests_that_cannot_start_a_run_are_refused_with_a_code(gateway: Gateway) -> None:
    foreign = await gateway.http.post(
        "/v1/content/runs", json={"topic": TOPIC, "referenceImages": ["http://example.com/cat.png"]}
    )
    not_an_image = await gateway.http.post("/v1/blobs", content=b"plain text, not a picture")
    blank = await gateway.http.post("/v1/content/runs", json={"topic": "   "})
    provider = await gateway.http.post("/v1/content/runs", json={"topic": TOPIC, "imageGenProvider": "dall-e"})
    unknown = await gateway.http.post("/v1/content/runs", json={"topic": TOPIC, "mood": "funny"})
    too_many = await gateway.http.post("/v1/content/runs", json={"topic": TOPIC, "maxIterations": 500})

    assert foreign.status_code == 422 and foreign.json()["error"]["code"] == "REFERENCE_IMAGE_INVALID"
    assert not_an_image.status_code >= 400
    for response in (blank, provider, unknown, too_many):
        assert response.status_code == 422 and response.json()["error"]["code"] == "INVALID_REQUEST", response.text


async def test_the_post_of_another_principals_or_a_missing_run_is_404(gateway: Gateway) -> None:
    missing = await gateway.http.get("/v1/content/runs/content-nope/post")

    assert missing.status_code == 404 and missing.json()["error"]["code"] == "RUN_NOT_FOUND"


async def test_a_deployment_whose_default_is_dashscope_draws_the_posts_images_there(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, loopback: Loopback
) -> None:
    fake = DashScopeDouble(base_url=loopback.base_url, running_polls=1)
    loopback.responder = fake
    fields = dashscope_settings(loopback.base_url) | {"image_provider_default": "dashscope"}
    async with running_gateway(env, tmp_path, api_style_store, **fields) as gateway:
        # With the notes: offline, a post without any is template filler that the review does not approve, and
        # each quality fallback would draw the images again (issue 29); this test is about where they are drawn.
        response = await gateway.http.post(
            "/v1/content/runs", json={"topic": TOPIC, "platform": "weibo", "evidence": NOTES}
        )
        run_id = response.headers["x-run-id"]
        assert parse_sse(response.text)[-1].event == "done"
        state = (await gateway.http.get(f"/v1/runs/{run_id}")).json()["state"]
        post = (await gateway.http.get(f"/v1/content/runs/{run_id}/post")).json()

    assert state["imageGenProvider"] == "qwen-image"
    assert post["complete"] and fake.calls["accepted"] == len(post["imageUrls"]) == fake.calls["fetch"] >= 2
