"""The gateway and the worker with `BLOB_STORE=s3`, over HTTP: an upload, an inpainting turn on it (the mask and
its base image go to the bucket through the intake process, the worker reads the base and writes its image
there) and both downloaded through their signed URLs; `/readyz` checks the bucket; another principal is refused;
nothing lands on local disk."""

import base64
import io
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import obstore
import pytest
from obstore.store import S3Store
from PIL import Image
from temporalio.testing import WorkflowEnvironment

from api import server
from api.blob_urls import signature
from imaging.rendering import decode_image
from stores.blob_backends import s3_config
from stores.s3_blob_store import S3BlobStore
from stores.style_store import LanceStyleStore
from tests.api.conftest import ALICE, BOB, KEYS, Gateway, running_gateway
from tests.security.test_authorization import blob_path, upload
from tests.sse import parse_sse

BOX = (0, 0, 100, 100)
SECRET = "blob-url-secret-of-the-s3-test"


@pytest.fixture
async def on_s3(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore, s3_blob_settings: dict[str, Any]
) -> AsyncIterator[Gateway]:
    async with running_gateway(
        env, tmp_path, api_style_store, api_keys=KEYS, blob_url_secret=SECRET, **s3_blob_settings
    ) as gateway:
        yield gateway


def png(size: tuple[int, int], color: tuple[int, int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def mask(size: tuple[int, int]) -> str:
    image = Image.new("L", size, 0)
    image.paste(255, BOX)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def bucket_keys(gateway: Gateway) -> list[str]:
    reader = S3Store(config=s3_config(gateway.settings), client_options={"allow_http": True})
    return [meta["path"] for batch in obstore.list(reader) for meta in batch]


async def test_an_upload_and_an_inpainting_turn_on_it_live_in_the_bucket(on_s3: Gateway) -> None:
    assert isinstance(on_s3.app.state.blobs, S3BlobStore)
    ready = await on_s3.http.get("/readyz")
    assert ready.status_code == 200 and ready.json()["checks"]["blobStore"] is True
    base = png((320, 240), (20, 120, 200))
    uploaded = await upload(on_s3, base, ALICE)
    assert (await on_s3.http.get(blob_path(uploaded["url"]))).content == base

    body = {
        "text": "把这里换成一朵花",
        "sessionId": "s3",
        "maskData": {"base64": mask((320, 240)), "imageUrl": uploaded["url"]},
    }
    response = await on_s3.http.post("/api/agent/chat", json=body, headers=ALICE)
    on_s3.sessions.add("session-alice-s3")
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    assert events[-1].data["data"]["status"] == "completed"
    canvas = [e for e in events if e.event == "gen_ui_component" and e.data["data"]["widgetType"] == "SmartCanvas"]
    edited_url = str(canvas[-1].data["data"]["props"]["imageUrl"])
    edited = await on_s3.http.get(blob_path(edited_url))
    assert edited.status_code == 200 and edited.headers["content-type"] == "image/png"
    assert decode_image(edited.content).size == (320, 240)

    stored = bucket_keys(on_s3)
    edited_key = blob_path(edited_url).split("?")[0].removeprefix("/v1/blobs/")
    assert {uploaded["key"], edited_key} <= set(stored)
    assert any(key.startswith("masks/") for key in stored)
    assert not on_s3.settings.blob_dir.exists() or not any(on_s3.settings.blob_dir.rglob("*.*"))


async def test_another_principal_is_refused_a_blob_in_the_bucket(on_s3: Gateway) -> None:
    alices = await upload(on_s3, png((8, 8), (200, 10, 10)), ALICE)
    expires = int(time.time()) + 600
    sig = signature(SECRET.encode(), "bob", alices["key"], expires)
    signed_for_bob = f"/v1/blobs/{alices['key']}?owner=bob&exp={expires}&sig={sig}"

    served = await on_s3.http.get(signed_for_bob)  # a valid signature, but bob has no record for the blob
    masked = await on_s3.http.post(
        "/api/agent/chat",
        json={"text": "涂红", "maskData": {"imageUrl": alices["url"], "base64": mask((8, 8))}},
        headers=BOB,
    )

    assert served.status_code == 404 and served.json()["error"]["code"] == "BLOB_NOT_FOUND"
    assert masked.status_code == 422 and masked.json()["error"]["code"] == "IMAGE_URL_FORBIDDEN"
    assert (await on_s3.http.get(blob_path(alices["url"]))).status_code == 200


def test_a_gateway_with_keys_on_s3_refuses_to_start_without_a_shared_url_secret(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With blobs in a bucket, gateways share nothing else: a random secret of each one's own would make a URL one
    gateway issued fail on another."""
    for name, value in {"BLOB_STORE": "s3", "S3_BUCKET": "b", "API_KEYS": KEYS, "DATA_DIR": str(tmp_path)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("BLOB_URL_SECRET", raising=False)

    with pytest.raises(SystemExit, match="BLOB_STORE=s3 needs BLOB_URL_SECRET"):
        server.main()
    assert not any(tmp_path.iterdir()), "nothing was written"
