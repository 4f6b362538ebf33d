"""Strict and bounded inputs: each hostile or malformed request gets its status and code and leaves nothing in the
blob store; bodies are limited while they are read; a session fed maximal messages stays small and answers."""

import base64
import json
import struct
import zlib

import pytest

from tests.api.conftest import Gateway
from tests.api.image.test_chat import mask_png
from tests.sse import parse_sse


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims `width` × `height` pixels (a decompression bomb's calling card)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    pixels = zlib.compress(b"\0" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def mask_body(mask: bytes) -> bytes:
    return json.dumps({"text": "换成花", "maskData": {"base64": base64.b64encode(mask).decode()}}).encode()


def chat_body(coordinate: str) -> bytes:
    """A chat body with one point whose x is `coordinate`, written as raw JSON text (NaN is not JSON)."""
    return ('{"text": "换成花", "maskData": {"coordinates": [{"x": ' + coordinate + ', "y": 2}]}}').encode()


BAD_CHATS = {
    "NaN literal": (chat_body("NaN"), 422, "INVALID_REQUEST"),
    "NaN string": (chat_body('"NaN"'), 422, "INVALID_REQUEST"),
    "Infinity": (chat_body("Infinity"), 422, "INVALID_REQUEST"),
    "-Infinity string": (chat_body('"-Infinity"'), 422, "INVALID_REQUEST"),
    "false as a number": (chat_body("false"), 422, "INVALID_REQUEST"),
    "a coordinate far off any canvas": (chat_body("1e300"), 422, "INVALID_REQUEST"),
    "an unknown field": (json.dumps({"text": "猫", "shadow": "x" * 1000}).encode(), 422, "INVALID_REQUEST"),
    "an unknown mask field": (json.dumps({"text": "猫", "maskData": {"url": "x"}}).encode(), 422, "INVALID_REQUEST"),
    "a PNG bomb mask": (
        mask_body(png_claiming(20000, 20000)),
        422,
        "MASK_TOO_LARGE",
    ),
    "a mask 5000 pixels wide": (
        mask_body(png_claiming(5000, 10)),
        422,
        "MASK_TOO_LARGE",
    ),
    "paths with a URL that is refused": (
        json.dumps(
            {"text": "换成花", "maskData": {"coordinates": [{"x": 1, "y": 2}], "imageUrl": "http://127.0.0.1/a.png"}}
        ).encode(),
        422,
        "IMAGE_URL_FORBIDDEN",
    ),
}


def assert_nothing_stored(gateway: Gateway) -> None:
    assert not gateway.settings.blob_dir.exists() or not any(gateway.settings.blob_dir.rglob("*.*"))


@pytest.mark.parametrize("case", list(BAD_CHATS))
async def test_a_bad_chat_gets_its_status_and_code_and_stores_nothing(gateway: Gateway, case: str) -> None:
    body, status, code = BAD_CHATS[case]

    response = await gateway.http.post("/api/agent/chat", content=body, headers={"content-type": "application/json"})

    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    assert_nothing_stored(gateway)


@pytest.mark.parametrize(
    ("upload", "status", "code"),
    [
        (b"\x89PNG\r\n\x1a\n<script>alert(1)</script>", 415, "IMAGE_INVALID_FORMAT"),  # the magic, then no image
        (png_claiming(20000, 20000), 413, "INPUT_TOO_LARGE"),
        (png_claiming(5000, 10), 413, "INPUT_TOO_LARGE"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * (20 * 1024 * 1024), 413, "INPUT_TOO_LARGE"),  # over 20 MB: stopped while read
    ],
)
async def test_an_upload_is_decoded_in_full_before_it_is_stored(
    gateway: Gateway, upload: bytes, status: int, code: str
) -> None:
    response = await gateway.http.post("/v1/blobs", content=upload, headers={"content-type": "image/png"})

    assert response.status_code == status and response.json()["error"]["code"] == code
    assert_nothing_stored(gateway)


async def test_a_valid_upload_is_stored_and_served(gateway: Gateway) -> None:
    png = base64.b64decode(mask_png((16, 16), (0, 0, 8, 8)))

    response = await gateway.http.post("/v1/blobs", content=png, headers={"content-type": "image/png"})

    assert response.status_code == 201
    assert (await gateway.http.get(response.json()["url"].replace("http://127.0.0.1:8000", ""))).content == png


async def test_a_body_over_its_routes_limit_is_refused_while_it_is_read(gateway: Gateway) -> None:
    answer = await gateway.http.post("/v1/runs/image-x-1-0/input", content=b'{"answer": "' + b"a" * 70_000 + b'"}')
    declared = await gateway.http.post(
        "/api/agent/chat", content=b"{}", headers={"content-type": "application/json", "content-length": str(1 << 30)}
    )

    assert answer.status_code == 413 and answer.json()["error"]["code"] == "INPUT_TOO_LARGE"
    assert declared.status_code == 413 and declared.json()["error"]["code"] == "INPUT_TOO_LARGE"


async def test_a_session_fed_fifty_maximal_messages_stays_small_and_still_answers(gateway: Gateway) -> None:
    gateway.sessions.add("session-local-flood")
    maximal = "猫" * 100_000
    for _ in range(50):
        response = await gateway.http.post("/api/agent/chat", json={"text": maximal, "sessionId": "flood"})
        assert response.status_code == 200 and parse_sse(response.text)[-1].event == "stream_end"

    after = await gateway.http.post("/api/agent/chat", json={"text": "画一只猫", "sessionId": "flood"})

    events = parse_sse(after.text)
    assert after.status_code == 200 and events[-1].data["data"]["status"] == "completed"
    session = (await gateway.http.get("/v1/runs/session-local-flood")).json()
    assert session["state"]["turns"] == 51
    assert len(json.dumps(session["state"], ensure_ascii=False)) < 200_000
    assert all(len(m["content"]) <= 1000 for m in session["state"]["messages"])
