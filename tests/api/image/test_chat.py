"""The gateway over HTTP (in-process): chat SSE, run state, resume, cancel, graphs, blobs and bad input."""

import base64
import io
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from PIL import Image, ImageChops
from temporalio.testing import WorkflowEnvironment

from imaging.rendering import decode_image
from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.sse import SseEvent, parse_sse
from workflows.image.workflow import ImageAgentWorkflow


def mask_png(size: tuple[int, int], box: tuple[int, int, int, int]) -> str:
    mask = Image.new("L", size, 0)
    mask.paste(255, box)
    buffer = io.BytesIO()
    mask.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


async def chat(gateway: Gateway, body: Mapping[str, object]) -> tuple[str, str, list[SseEvent]]:
    response = await gateway.http.post("/api/agent/chat", json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    gateway.sessions.add(f"session-local-{response.headers['x-session-id']}")
    return response.headers["x-run-id"], response.headers["x-session-id"], parse_sse(response.text)


def canvas_url(events: list[SseEvent]) -> str:
    canvases = [e for e in events if e.event == "gen_ui_component" and e.data["data"]["widgetType"] == "SmartCanvas"]
    return str(canvases[-1].data["data"]["props"]["imageUrl"])


async def test_chat_streams_a_run_that_ends_with_a_served_png(gateway: Gateway) -> None:
    run_id, session_id, events = await chat(gateway, {"text": "生成一只赛博朋克风格的猫", "sessionId": "cat"})

    assert run_id.startswith("image-cat-1-") and session_id == "cat"
    assert [e.id for e in events] == list(range(len(events)))
    assert {e.data["node"] for e in events if e.event == "thought_log"} >= {"planner", "rag", "executor", "critic"}
    assert events[-1].event == "stream_end"
    image = await gateway.http.get(urlsplit(canvas_url(events)).path)
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert image.content.startswith(b"\x89PNG")


async def test_run_state_uses_the_seed_field_names(gateway: Gateway) -> None:
    run_id, _, _ = await chat(gateway, {"text": "生成一只赛博朋克风格的猫"})

    response = await gateway.http.get(f"/v1/runs/{run_id}")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "completed"
    assert body["workflowType"] == "ImageAgentWorkflow"
    state = body["state"]
    assert state["intent"]["action"] == "generate_image"
    assert state["userInput"]["text"] == "生成一只赛博朋克风格的猫"
    assert state["qualityCheck"]["passed"] is True
    assert state["executionResult"]["taskType"] == "text_to_image"
    assert state["metadata"]["retryCount"] == 0


async def test_events_resume_after_last_event_id_without_loss_or_repeats(gateway: Gateway) -> None:
    run_id, _, events = await chat(gateway, {"text": "画一只猫"})

    joined = await gateway.http.get(f"/v1/runs/{run_id}/events")
    assert [e.id for e in parse_sse(joined.text)] == [e.id for e in events]
    resumed = await gateway.http.get(f"/v1/runs/{run_id}/events", headers={"Last-Event-ID": "3"})
    rest = parse_sse(resumed.text)
    assert [e.id for e in rest] == [e.id for e in events[4:]]
    assert [e.data for e in rest] == [e.data for e in events[4:]]


async def test_unknown_runs_and_workflows_answer_404_with_a_code(gateway: Gateway) -> None:
    for path in ("/v1/runs/nope", "/v1/runs/nope/events"):
        response = await gateway.http.get(path)
        assert response.status_code == 404 and response.json()["error"]["code"] == "RUN_NOT_FOUND"
    response = await gateway.http.get("/v1/workflows/Nope/graph")
    assert response.status_code == 404 and response.json()["error"]["code"] == "WORKFLOW_NOT_FOUND"


async def test_cancelling_a_finished_run_is_a_conflict(gateway: Gateway) -> None:
    run_id, _, _ = await chat(gateway, {"text": "画一只猫"})

    response = await gateway.http.post(f"/v1/runs/{run_id}/cancel")
    assert response.status_code == 409 and response.json()["error"]["code"] == "RUN_ALREADY_CLOSED"


async def test_graph_is_served_as_mermaid(gateway: Gateway) -> None:
    response = await gateway.http.get("/v1/workflows/ImageAgentWorkflow/graph")

    assert response.status_code == 200
    assert response.text.startswith("graph TD")
    assert "critic -->|未通过且重试次数 < 3| rag" in response.text


async def test_inpainting_with_a_gateway_issued_image_changes_only_the_mask(gateway: Gateway) -> None:
    _, session, first = await chat(gateway, {"text": "生成一只赛博朋克风格的猫", "sessionId": "edit"})
    base_url = canvas_url(first)
    box = (200, 150, 400, 300)
    body = {
        "text": "换成机械头盔",
        "sessionId": session,
        "maskData": {"base64": mask_png((800, 600), box), "imageUrl": base_url},
    }

    run_id, _, events = await chat(gateway, body)

    assert run_id.startswith("image-edit-2-") and events[-1].data["data"]["status"] == "completed"
    base = decode_image((await gateway.http.get(urlsplit(base_url).path)).content).convert("RGB")
    edited = decode_image((await gateway.http.get(urlsplit(canvas_url(events)).path)).content).convert("RGB")
    diff = ImageChops.difference(base, edited)
    assert diff.getbbox() is not None
    left, top, right, bottom = diff.getbbox()  # type: ignore[misc]
    assert left >= box[0] and top >= box[1] and right <= box[2] and bottom <= box[3]


async def test_an_uploaded_image_works_as_a_base_image(gateway: Gateway) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (320, 240), (20, 120, 200)).save(buffer, format="PNG")
    upload = await gateway.http.post("/v1/blobs", content=buffer.getvalue(), headers={"content-type": "image/png"})
    assert upload.status_code == 201
    url = upload.json()["url"]

    body = {"text": "把这里换成一朵花", "maskData": {"base64": mask_png((320, 240), (0, 0, 100, 100)), "imageUrl": url}}
    _, _, events = await chat(gateway, body)

    assert events[-1].data["data"]["status"] == "completed"
    edited = decode_image((await gateway.http.get(urlsplit(canvas_url(events)).path)).content)
    assert edited.size == (320, 240)


async def test_bad_masks_are_rejected_with_a_code_and_nothing_is_stored(gateway: Gateway) -> None:
    too_many_paths = [[{"x": 1, "y": 1}, {"x": 2, "y": 2}]] * 101
    too_long_path = [{"x": i % 800, "y": i % 600} for i in range(10_001)]
    huge = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * (10 * 1024 * 1024 + 1)).decode()
    cases = {
        "MASK_TOO_LARGE": {"base64": huge},
        "MASK_INVALID_FORMAT": {"base64": base64.b64encode(b"GIF89a not a png").decode()},
        "MASK_TOO_MANY_PATHS": {"coordinates": too_many_paths},
        "MASK_PATH_TOO_LONG": {"coordinates": too_long_path},
    }
    for code, mask in cases.items():
        response = await gateway.http.post("/api/agent/chat", json={"text": "换成花", "maskData": mask})
        assert response.status_code == 422, code
        assert response.json()["error"]["code"] == code
    assert not gateway.settings.blob_dir.exists() or not any(gateway.settings.blob_dir.rglob("*.*"))


async def test_bad_input_inside_the_run_streams_an_error_event(gateway: Gateway) -> None:
    _, _, empty = await chat(gateway, {"text": ""})

    assert [e.data["data"]["code"] for e in empty if e.event == "error"] == ["INVALID_INPUT_EMPTY"]
    assert empty[-1].event == "stream_end"


async def test_an_image_url_that_is_not_http_is_refused_before_anything_is_stored(gateway: Gateway) -> None:
    mask = {"base64": mask_png((8, 8), (0, 0, 4, 4)), "imageUrl": "ftp://x/y.png"}

    response = await gateway.http.post("/api/agent/chat", json={"text": "换成花", "maskData": mask})

    assert response.status_code == 422 and response.json()["error"]["code"] == "IMAGE_URL_INVALID"
    assert not gateway.settings.blob_dir.exists() or not any(gateway.settings.blob_dir.rglob("*.*"))


async def test_malformed_requests_get_a_code(gateway: Gateway) -> None:
    response = await gateway.http.post("/api/agent/chat", json={"text": "猫", "sessionId": "../etc"})
    assert response.status_code == 422 and response.json()["error"]["code"] == "INVALID_REQUEST"
    response = await gateway.http.post("/v1/blobs", content=b"hello")
    assert response.status_code == 415 and response.json()["error"]["code"] == "IMAGE_INVALID_FORMAT"


async def test_health_and_openapi(gateway: Gateway) -> None:
    assert (await gateway.http.get("/healthz")).json() == {"status": "ok"}
    paths = (await gateway.http.get("/openapi.json")).json()["paths"]
    assert {"/api/agent/chat", "/v1/runs/{run_id}", "/v1/runs/{run_id}/events", "/v1/runs/{run_id}/cancel"} <= set(
        paths
    )


async def test_the_gateway_makes_image_urls_from_the_blob_keys_runs_carry(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    """Workflows carry blob keys (`blob:` references); only the gateway knows the public URL it serves them at."""
    cdn = "https://images.example.test"
    async with running_gateway(env, tmp_path, api_style_store, public_base_url=cdn) as gateway:
        run_id, _, events = await chat(gateway, {"text": "生成一只赛博朋克风格的猫"})
        view = (await gateway.http.get(f"/v1/runs/{run_id}")).json()
        state = await env.client.get_workflow_handle_for(ImageAgentWorkflow.run, run_id).query(ImageAgentWorkflow.state)

    assert state.execution_result is not None
    key = state.execution_result.blob_key
    assert state.execution_result.image_url == f"blob:{key}"
    assert canvas_url(events) == view["state"]["executionResult"]["imageUrl"] == f"{cdn}/v1/blobs/{key}"
