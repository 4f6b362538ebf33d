"""Principals and ownership: with API keys configured, every endpoint but health and docs needs a key, and a run
or session answers only to the principal that started it (anyone else gets the 404 of a run that does not exist);
a blob only under the URL signed for its principal.
"""

import asyncio
import hashlib
import io
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from PIL import Image
from temporalio.testing import WorkflowEnvironment

from api.principals import KeyConfigError, KeyRing
from stores.style_store import LanceStyleStore
from tests.api.conftest import ALICE, BOB, KEYS, Gateway, running_gateway
from tests.sse import parse_sse


async def alice_run(gateway: Gateway, session: str) -> str:
    response = await gateway.http.post(
        "/api/agent/chat", json={"text": "画一只猫", "sessionId": session}, headers=ALICE
    )
    assert response.status_code == 200, response.text
    gateway.sessions.add(f"session-alice-{session}")
    assert parse_sse(response.text)[-1].event == "stream_end"
    return response.headers["x-run-id"]


def run_endpoints(run_id: str) -> list[tuple[str, str, dict[str, object] | None]]:
    return [
        ("GET", f"/v1/runs/{run_id}", None),
        ("GET", f"/v1/runs/{run_id}/events", None),
        ("POST", f"/v1/runs/{run_id}/input", {"answer": "x"}),
        ("POST", f"/v1/runs/{run_id}/cancel", None),
    ]


async def test_another_principal_gets_404_from_every_run_endpoint(keyed: Gateway) -> None:
    run_id = await alice_run(keyed, "mine")

    for method, path, body in [*run_endpoints(run_id), *run_endpoints("session-alice-mine")]:
        response = await keyed.http.request(method, path, json=body, headers=BOB)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["error"]["code"] == "RUN_NOT_FOUND"
    assert (await keyed.http.get(f"/v1/runs/{run_id}", headers=ALICE)).status_code == 200


async def test_a_run_of_nobody_and_a_run_of_someone_else_answer_alike(keyed: Gateway) -> None:
    run_id = await alice_run(keyed, "alike")

    theirs = await keyed.http.get(f"/v1/runs/{run_id}", headers=BOB)
    nobodys = await keyed.http.get(f"/v1/runs/{run_id}x", headers=BOB)

    assert theirs.status_code == nobodys.status_code == 404
    assert theirs.json()["error"]["code"] == nobodys.json()["error"]["code"]


@pytest.fixture
async def keyed_dev(
    dev_env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[Gateway]:
    """On the dev server: the time-skipping server cannot list runs."""
    async with running_gateway(dev_env, tmp_path, api_style_store, api_keys=KEYS) as gateway:
        yield gateway


async def test_lists_show_only_the_callers_runs(keyed_dev: Gateway) -> None:
    keyed = keyed_dev
    run_id = await alice_run(keyed, "listed")

    async def listed(headers: dict[str, str]) -> set[str]:
        for _ in range(50):  # visibility catches up within moments
            runs = (await keyed.http.get("/v1/runs?sessionId=listed", headers=headers)).json()["runs"]
            if len(runs) == 2 or headers is BOB:
                return {r["runId"] for r in runs}
            await asyncio.sleep(0.1)
        return set()

    assert await listed(ALICE) == {run_id, "session-alice-listed"}
    assert await listed(BOB) == set()


async def test_the_same_session_id_is_two_sessions_for_two_principals(keyed: Gateway) -> None:
    alices = await alice_run(keyed, "shared")

    bobs = await keyed.http.post("/api/agent/chat", json={"text": "画一朵花", "sessionId": "shared"}, headers=BOB)
    keyed.sessions.add("session-bob-shared")

    assert bobs.status_code == 200 and bobs.headers["x-run-id"] != alices
    assert bobs.headers["x-run-id"].startswith("image-shared-1-")  # bob's first turn, not alice's second
    view = (await keyed.http.get("/v1/runs/session-alice-shared", headers=ALICE)).json()
    assert view["state"]["turns"] == 1 and view["state"]["messages"][0]["content"] == "画一只猫"


@pytest.mark.parametrize("headers", [{}, {"authorization": "Bearer wrong"}, {"authorization": "alice-key"}])
async def test_without_a_known_key_every_endpoint_is_401(keyed: Gateway, headers: dict[str, str]) -> None:
    for method, path, body in [
        ("POST", "/api/agent/chat", {"text": "画一只猫"}),
        ("POST", "/v1/runs", {"workflow": "ImageAgentWorkflow", "input": {"text": "画一只猫"}}),
        ("GET", "/v1/runs", None),
        ("GET", "/v1/workflows", None),
        ("POST", "/v1/blobs", None),
        *run_endpoints("image-any-1-0000000000"),
    ]:
        response = await keyed.http.request(method, path, json=body, headers=headers)
        assert response.status_code == 401, (method, path)
        assert response.json()["error"]["code"] == "UNAUTHORIZED"
        assert response.headers["www-authenticate"] == "Bearer"


async def test_health_and_docs_need_no_key(keyed: Gateway) -> None:
    for path in ("/healthz", "/readyz", "/openapi.json"):
        assert (await keyed.http.get(path)).status_code == 200, path


@pytest.mark.parametrize("spec", ["alice", "alice=", "=key", "al ice=key", "alice=a,alice=b", "a" * 33 + "=key"])
def test_a_key_list_that_cannot_be_read_is_refused_naming_the_entry(spec: str) -> None:
    with pytest.raises(KeyConfigError):
        KeyRing.parse(spec)


def test_keys_are_found_by_their_hash_or_their_plain_value() -> None:
    keys = KeyRing.parse(KEYS)

    assert keys.principal("alice-key") == "alice" and keys.principal("bob-key") == "bob"
    assert keys.principal("sha256:" + hashlib.sha256(b"bob-key").hexdigest()) is None
    assert keys.principal("") is None and not KeyRing.parse("").required


def png(seed: int) -> bytes:
    image = Image.new("RGB", (8, 8), (seed, 40, 200))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


async def upload(gateway: Gateway, data: bytes, headers: dict[str, str]) -> dict[str, str]:
    response = await gateway.http.post("/v1/blobs", content=data, headers=headers | {"content-type": "image/png"})
    assert response.status_code == 201, response.text
    view: dict[str, str] = response.json()
    return view


def blob_path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


async def test_a_blob_is_served_only_under_the_url_issued_to_its_principal(keyed: Gateway) -> None:
    mine = await upload(keyed, png(1), ALICE)
    key, url = mine["key"], blob_path(mine["url"])

    assert (await keyed.http.get(url)).content == png(1)  # no header needed: the URL works in an <img src>
    for forged in (
        f"/v1/blobs/{key}",
        f"/v1/blobs/{key}?owner=bob&sig=" + parse_qs(urlsplit(url).query)["sig"][0],
        f"/v1/blobs/{key}?owner=alice&sig=" + "0" * 32,
    ):
        response = await keyed.http.get(forged, headers=BOB)
        assert response.status_code == 404, forged
        assert response.json()["error"]["code"] == "BLOB_NOT_FOUND"


async def test_the_same_bytes_uploaded_by_two_principals_get_two_urls(keyed: Gateway) -> None:
    alices, bobs = await upload(keyed, png(2), ALICE), await upload(keyed, png(2), BOB)

    assert alices["key"] == bobs["key"] and alices["url"] != bobs["url"]
    assert (await keyed.http.get(blob_path(bobs["url"]))).status_code == 200


async def test_a_generated_image_reaches_its_owner_only(keyed: Gateway) -> None:
    run_id = await alice_run(keyed, "pixels")
    image_url = (await keyed.http.get(f"/v1/runs/{run_id}", headers=ALICE)).json()["state"]["executionResult"][
        "imageUrl"
    ]
    key = urlsplit(image_url).path.removeprefix("/v1/blobs/")

    assert (await keyed.http.get(blob_path(image_url))).status_code == 200
    assert (await keyed.http.get(f"/v1/blobs/{key}", headers=BOB)).status_code == 404


async def test_another_principals_image_url_is_refused_as_a_base_image(keyed: Gateway) -> None:
    alices = await upload(keyed, png(3), ALICE)
    mask = {"imageUrl": alices["url"], "coordinates": [{"x": 1, "y": 1}, {"x": 5, "y": 1}, {"x": 5, "y": 5}]}
    stored = set(keyed.settings.blob_dir.rglob("*"))

    response = await keyed.http.post("/api/agent/chat", json={"text": "把猫涂成红色", "maskData": mask}, headers=BOB)

    assert response.status_code == 422 and response.json()["error"]["code"] == "IMAGE_URL_FORBIDDEN"
    assert set(keyed.settings.blob_dir.rglob("*")) == stored  # the mask's paths were not stored
