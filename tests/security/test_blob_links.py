"""Blob keys are not secret (issue 26 rows 1 and 9): a `blob:` key a user types is never made a URL, a blob is shown,
served and accepted only for a principal that owns it, and every URL the gateway signs expires.

Alice uploads an image; bob, who knows its key (logs, the Temporal UI, manifests show keys), tries to get a URL
for it through every family's free text, and to use it as his mask's base image or his post's reference image.
"""

import asyncio
import hashlib
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from temporalio.testing import WorkflowEnvironment

from api.blob_urls import signature
from stores.style_store import LanceStyleStore
from tests.api.conftest import ALICE, BOB, KEYS, Gateway, running_gateway
from tests.security.test_authorization import blob_path, png, upload
from tests.sse import parse_sse

SECRET = "blob-url-secret-of-the-test"
TTL = 3600
TRIANGLE = [{"x": 1, "y": 1}, {"x": 5, "y": 1}, {"x": 5, "y": 5}]


@pytest.fixture
async def keyed(env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore) -> AsyncIterator[Gateway]:
    async with running_gateway(
        env, tmp_path, api_style_store, api_keys=KEYS, blob_url_secret=SECRET, blob_url_ttl_seconds=TTL
    ) as gateway:
        yield gateway


def signed(key: str, owner: str, expires: int) -> str:
    """A URL signed with the gateway's own secret, as only the gateway could make it."""
    sig = signature(SECRET.encode(), owner, key, expires)
    return f"http://gateway/v1/blobs/{key}?owner={owner}&exp={expires}&sig={sig}"


def urls_for(text: str, key: str) -> list[str]:
    return re.findall(rf"https?://[^\s\"]*/v1/blobs/{re.escape(key)}[^\s\"]*", text)


async def test_a_blob_key_in_a_topic_is_not_signed_for_the_caller(keyed: Gateway) -> None:
    key = (await upload(keyed, png(11), ALICE))["key"]

    response = await keyed.http.post(
        "/v1/content/runs", json={"topic": f"blob:{key}", "platform": "weibo"}, headers=BOB
    )

    assert response.status_code == 200, response.text
    assert parse_sse(response.text)[-1].event == "done"
    view = await keyed.http.get(f"/v1/runs/{response.headers['x-run-id']}", headers=BOB)
    events = await keyed.http.get(f"/v1/runs/{response.headers['x-run-id']}/events", headers=BOB)
    assert f"blob:{key}" in view.text  # bob's own text, shown as he typed it
    assert urls_for(view.text, key) == urls_for(events.text, key) == urls_for(response.text, key) == []


async def test_a_blob_key_in_a_chat_message_is_not_signed_for_the_caller(keyed: Gateway) -> None:
    key = (await upload(keyed, png(12), ALICE))["key"]

    response = await keyed.http.post("/api/agent/chat", json={"text": f"blob:{key}", "sessionId": "keys"}, headers=BOB)
    keyed.sessions.add("session-bob-keys")

    assert response.status_code == 200, response.text
    run = await keyed.http.get(f"/v1/runs/{response.headers['x-run-id']}", headers=BOB)
    session = await keyed.http.get("/v1/runs/session-bob-keys", headers=BOB)
    assert f"blob:{key}" in run.text
    assert urls_for(run.text, key) == urls_for(session.text, key) == urls_for(response.text, key) == []


async def test_a_blob_key_in_a_writing_chat_is_not_signed_for_the_caller(keyed: Gateway) -> None:
    key = (await upload(keyed, png(13), ALICE))["key"]
    project = await keyed.http.post("/v1/writing/projects", json={"name": "钥匙"}, headers=BOB)
    assert project.status_code == 201, project.text

    response = await keyed.http.post(
        f"/v1/writing/projects/{project.json()['projectId']}/chat", json={"text": f"blob:{key}"}, headers=BOB
    )

    assert response.status_code == 200, response.text
    run = await keyed.http.get(f"/v1/runs/{response.headers['x-run-id']}", headers=BOB)
    assert urls_for(run.text, key) == urls_for(response.text, key) == []


async def test_a_url_signed_for_bob_does_not_read_alices_blob(keyed: Gateway) -> None:
    key = (await upload(keyed, png(14), ALICE))["key"]
    forged = signed(key, "bob", int(time.time()) + 600)  # a key alone, even signed for him, grants nothing

    served = await keyed.http.get(blob_path(forged))
    masked = await keyed.http.post(
        "/api/agent/chat", json={"text": "涂红", "maskData": {"imageUrl": forged, "coordinates": TRIANGLE}}, headers=BOB
    )
    referenced = await keyed.http.post(
        "/v1/content/runs", json={"topic": "咖啡", "platform": "weibo", "referenceImages": [forged]}, headers=BOB
    )

    assert served.status_code == 404 and served.json()["error"]["code"] == "BLOB_NOT_FOUND"
    assert masked.status_code == 422 and masked.json()["error"]["code"] == "IMAGE_URL_FORBIDDEN"
    assert referenced.status_code == 422 and referenced.json()["error"]["code"] == "REFERENCE_IMAGE_INVALID"


async def test_the_same_bytes_from_two_principals_are_owned_by_both(keyed: Gateway) -> None:
    alices, bobs = await upload(keyed, png(15), ALICE), await upload(keyed, png(15), BOB)

    assert alices["key"] == bobs["key"]
    assert (await keyed.http.get(blob_path(alices["url"]))).content == png(15)
    assert (await keyed.http.get(blob_path(bobs["url"]))).content == png(15)


async def test_a_signed_url_carries_its_expiry_and_the_cache_keeps_it_no_longer(keyed: Gateway) -> None:
    before = time.time()
    url = (await upload(keyed, png(16), ALICE))["url"]

    expires = int(parse_qs(urlsplit(url).query)["exp"][0])
    assert before + TTL * 3 / 4 - 1 <= expires <= time.time() + TTL
    served = await keyed.http.get(blob_path(url))
    assert served.status_code == 200
    assert served.headers["cache-control"].startswith("private, max-age=")
    assert int(served.headers["cache-control"].rsplit("=", 1)[1]) <= TTL


async def test_an_expired_or_extended_url_is_a_blob_that_does_not_exist(keyed: Gateway) -> None:
    key = (await upload(keyed, png(17), ALICE))["key"]
    url = await keyed.http.get(blob_path(signed(key, "alice", int(time.time()) + 600)))
    assert url.status_code == 200

    expired = signed(key, "alice", int(time.time()) - 1)
    query = parse_qs(urlsplit(expired).query)
    extended = f"/v1/blobs/{key}?owner=alice&exp={int(time.time()) + 10**6}&sig={query['sig'][0]}"
    for refused in (blob_path(expired), extended, f"/v1/blobs/{key}?owner=alice&exp=x&sig={query['sig'][0]}"):
        response = await keyed.http.get(refused)
        assert response.status_code == 404, refused
        assert response.json()["error"]["code"] == "BLOB_NOT_FOUND"


async def test_an_expired_url_of_the_callers_own_still_names_its_image(keyed: Gateway) -> None:
    key = (await upload(keyed, png(18), ALICE))["key"]
    mine = signed(key, "alice", int(time.time()) - 60)

    response = await keyed.http.post(
        "/api/agent/chat",
        json={
            "text": "把左上角涂成红色",
            "sessionId": "expired",
            "maskData": {"imageUrl": mine, "coordinates": TRIANGLE},
        },
        headers=ALICE,
    )
    keyed.sessions.add("session-alice-expired")

    assert response.status_code == 200, response.text
    assert parse_sse(response.text)[-1].event == "stream_end"


async def test_an_issued_url_stops_working_when_its_lifetime_ends(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> None:
    async with running_gateway(env, tmp_path, api_style_store, api_keys=KEYS, blob_url_ttl_seconds=1) as gateway:
        url = blob_path((await upload(gateway, png(19), ALICE))["url"])
        first = await gateway.http.get(url)
        await asyncio.sleep(1.1)
        later = await gateway.http.get(url)

    assert later.status_code == 404 and later.json()["error"]["code"] == "BLOB_NOT_FOUND"
    assert first.status_code in (200, 404)  # issued with at most one second to live


def test_signatures_cover_the_owner_the_key_and_the_expiry() -> None:
    key = f"uploads/{hashlib.sha256(b'x').hexdigest()}.png"
    base = signature(b"s", "alice", key, 100)

    assert len({base, signature(b"s", "bob", key, 100), signature(b"s", "alice", key, 101)}) == 3
