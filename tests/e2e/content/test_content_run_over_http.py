"""End to end over real HTTP on the real stack (`python -m deploy.stack`): a user uploads a reference image,
starts a content run without naming a platform, gets the brief compiler's `user_input_required` while the
stream stays open, answers through `POST /v1/runs/{id}/input`, and receives a finished post whose image URLs
serve PNGs, with the reference's measurements in the run's state."""

import io
from collections.abc import Iterator

import httpx
import pytest
from PIL import Image

from imaging.rendering import encode_png, render_text_to_image
from tests.e2e.image.test_stack import sse_events
from tests.stack_process import running_stack

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("data")
    with running_stack(data, tmp_path_factory.mktemp("logs") / "stack.log") as running:
        yield running.gateway


def test_a_content_run_with_one_clarification_over_http(stack: str) -> None:
    with httpx.Client(base_url=stack, timeout=60) as http:
        png = encode_png(render_text_to_image("赛博朋克 霓虹 夜景", seed=5, width=400, height=300, style_strength=0.9))
        uploaded = http.post("/v1/blobs", content=png, headers={"content-type": "image/png"})
        assert uploaded.status_code == 201, uploaded.text
        body = {
            "topic": "打工人的咖啡续命指南",
            "referenceImages": [uploaded.json()["url"]],
            "evidence": [
                "2025 年职场调查：67% 的上班族每天喝至少一杯咖啡。",
                "营养师建议：每天咖啡因不超过 400 毫克。",
            ],
        }
        seen: list[str] = []
        with http.stream("POST", "/v1/content/runs", json=body) as response:
            assert response.status_code == 200, response.read()
            run_id = response.headers["x-run-id"]
            for event in sse_events(response):
                seen.append(event.event)
                if event.event == "user_input_required":
                    question = event.data["data"]
                    assert "weibo" in [option["id"] for option in question["options"]]
                    view = http.get(f"/v1/runs/{run_id}").json()
                    assert view["awaitingInput"]["questionId"] == question["questionId"]
                    answered = http.post(
                        f"/v1/runs/{run_id}/input", json={"answer": "weibo", "questionId": question["questionId"]}
                    )
                    assert answered.status_code == 200, answered.text

        assert seen[-2:] == ["post_ready", "done"]
        assert seen.index("user_input_required") < seen.index("user_input_received") < seen.index("image_generated")
        post = http.get(f"/v1/content/runs/{run_id}/post").json()
        assert post["complete"] and post["imageUrls"]
        for url in post["imageUrls"]:
            image = http.get(url)
            assert image.status_code == 200 and Image.open(io.BytesIO(image.content)).format == "PNG"
        state = http.get(f"/v1/runs/{run_id}").json()["state"]
        assert state["creativeBrief"]["platform"] == "weibo"
        assert state["clarificationRounds"] == 1 and state["agentClarificationKeys"] == ["brief.platform"]
        assert state["referenceAnalyses"][0]["brightness"] < 0.5
