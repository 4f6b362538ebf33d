"""Issue 27 item 3, the live preview over HTTP: an offline todo run checked with the real toolchain
(`APP_TOOLCHAIN_CHECKS=on`) keeps its `vite build`; `GET /v1/apps/runs/{id}/preview` gives its owner a capability
URL under which `index.html` and its assets are served without the API key, sandboxed (CSP `sandbox allow-scripts
allow-forms`, nosniff, CORS for module scripts from an opaque origin); another principal gets 404; a forged,
altered or expired token is refused with its code, a path outside the build is not found. With the toolchain off,
the preview says so. The workers' npm installs go to one cache for the session (as the toolchain tests')."""

import base64
import json
import re
import shutil
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import pytest
from temporalio.testing import WorkflowEnvironment

from api.blob_urls import signature
from stores.style_store import LanceStyleStore
from tests.api.conftest import ALICE, BOB, KEYS, Gateway, running_gateway
from tests.sse import parse_sse

SECRET = "preview-secret-of-the-test"
TODO = "a todo list to plan my week"


@pytest.fixture(scope="module")
async def built(
    dev_env: WorkflowEnvironment, tmp_path_factory: pytest.TempPathFactory, api_style_store: LanceStyleStore
) -> AsyncIterator[tuple[Gateway, str]]:
    """Alice's offline todo run, built with the real toolchain, on a gateway with API keys (on the dev server:
    the time-skipping server would skip the run's deadline while npm works)."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    data = tmp_path_factory.mktemp("preview-data")
    shared = tmp_path_factory.getbasetemp() / "app-builder-work" / "npm-cache"
    shared.mkdir(parents=True, exist_ok=True)
    (data / "app_builder").mkdir()
    (data / "app_builder" / "npm-cache").symlink_to(shared, target_is_directory=True)
    async with running_gateway(
        dev_env, data, api_style_store, api_keys=KEYS, blob_url_secret=SECRET, app_toolchain_checks="on"
    ) as gateway:
        response = await gateway.http.post("/v1/apps/runs", json={"message": TODO}, headers=ALICE, timeout=300)
        assert response.status_code == 200, response.text
        [ready] = [event.data["data"] for event in parse_sse(response.text) if event.event == "app_ready"]
        assert ready["success"] is True and ready["preview"] is True, ready
        yield gateway, response.headers["x-run-id"]


def token_of(url: str) -> str:
    match = re.fullmatch(r"http://[^/]+/v1/apps/previews/([^/]+)/index\.html", url)
    assert match, url
    return match[1]


def altered(token: str, **changes: object) -> str:
    """`token` with parts of its payload changed and its signature kept."""
    body, _, sig = token.partition(".")
    owner, run_id, manifest_key, expires = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    parts = {"owner": owner, "run_id": run_id, "manifest_key": manifest_key, "expires": expires} | changes
    payload = json.dumps(list(parts.values()), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(payload).decode().rstrip("=") + "." + sig


@pytest.mark.toolchain
async def test_issue_27_the_owner_gets_a_preview_url_serving_the_build_sandboxed(built: tuple[Gateway, str]) -> None:
    gateway, run_id = built

    preview = await gateway.http.get(f"/v1/apps/runs/{run_id}/preview", headers=ALICE)

    assert preview.status_code == 200, preview.text
    body = preview.json()
    assert body["available"] is True and body["note"] is None
    assert body["files"] >= 2 and body["bytes"] > 0
    index = await gateway.http.get(urlsplit(body["url"]).path)  # no API key: the URL is the key
    assert index.status_code == 200, index.text
    assert index.headers["content-type"] == "text/html; charset=utf-8"
    assets = re.findall(r'(?:src|href)="\./(assets/[^"]+)"', index.text)
    assert any(a.endswith(".js") for a in assets) and 'type="module" crossorigin' in index.text, index.text
    folder = urlsplit(body["url"]).path.removesuffix("index.html")
    served = {asset: await gateway.http.get(folder + asset) for asset in assets}
    for response in [index, *served.values()]:
        assert response.status_code == 200
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["access-control-allow-origin"] == "*", "module scripts from an opaque origin"
        policy = response.headers["content-security-policy"]
        assert "sandbox allow-scripts" in policy and "allow-same-origin" not in policy
        assert "script-src 'self'" in policy and "style-src 'self'" in policy and "connect-src 'none'" in policy
        assert "form-action 'none'" in policy, "a form's submit event reaches the app; no form is sent"
        assert "frame-ancestors 'self' http://" in policy
    types = {asset.rsplit(".", 1)[-1]: response.headers["content-type"] for asset, response in served.items()}
    assert types["js"] == "text/javascript; charset=utf-8"
    assert types.get("css", "text/css; charset=utf-8") == "text/css; charset=utf-8"
    state = (await gateway.http.get(f"/v1/runs/{run_id}", headers=ALICE)).json()["state"]
    assert state["preview"]["workspaceRef"] == state["workspace"]["manifestRef"], "the final workspace's build"


@pytest.mark.toolchain
async def test_issue_27_another_principal_gets_no_preview(built: tuple[Gateway, str]) -> None:
    gateway, run_id = built

    response = await gateway.http.get(f"/v1/apps/runs/{run_id}/preview", headers=BOB)

    assert response.status_code == 404 and response.json()["error"]["code"] == "RUN_NOT_FOUND"


@pytest.mark.toolchain
async def test_issue_27_a_forged_altered_or_expired_preview_url_is_refused(built: tuple[Gateway, str]) -> None:
    gateway, run_id = built
    url = (await gateway.http.get(f"/v1/apps/runs/{run_id}/preview", headers=ALICE)).json()["url"]
    token = token_of(url)
    body = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    manifest_key = body[2]
    past = 1_000_000
    expired_sig = signature(SECRET.encode(), "alice", f"preview\n{run_id}\n{manifest_key}", past)
    refused = {
        "forged": token.split(".")[0] + "." + "0" * 32,
        "unsigned": token.split(".")[0] + ".",
        "other owner": altered(token, owner="bob"),
        "other run": altered(token, run_id="app-someone-else"),
        "other build": altered(token, manifest_key="previewmanifest/" + "0" * 64 + ".json"),
        "garbage": "not-a-token",
    }

    for case, bad in refused.items():
        response = await gateway.http.get(f"/v1/apps/previews/{bad}/index.html")
        assert response.status_code == 403, case
        assert response.json()["error"]["code"] == "PREVIEW_URL_INVALID", case
    expired = altered(token, expires=past).split(".")[0] + "." + expired_sig
    response = await gateway.http.get(f"/v1/apps/previews/{expired}/index.html")
    assert response.status_code == 403 and response.json()["error"]["code"] == "PREVIEW_URL_EXPIRED"
    # (encoded: the client would resolve a plain `..` before sending)
    for outside in ("%2e%2e/%2e%2e/package.json", "assets%2f..%2f..%2fx", "%2Fetc%2Fpasswd", "src/App.tsx"):
        response = await gateway.http.get(f"/v1/apps/previews/{token}/{outside}")
        assert response.status_code == 404, outside
        assert response.json()["error"]["code"] == "FILE_NOT_FOUND", outside


async def test_issue_27_with_the_toolchain_off_the_preview_says_why(gateway: Gateway) -> None:
    response = await gateway.http.post("/v1/apps/runs", json={"message": TODO})
    assert response.status_code == 200, response.text
    [ready] = [event.data["data"] for event in parse_sse(response.text) if event.event == "app_ready"]

    preview = await gateway.http.get(f"/v1/apps/runs/{response.headers['x-run-id']}/preview")

    assert ready["preview"] is False
    assert preview.status_code == 200, preview.text
    assert preview.json() == {
        "available": False,
        "note": "toolchain checks are off on the worker (APP_TOOLCHAIN_CHECKS=off): no build, no preview",
        "url": None,
        "files": 0,
        "bytes": 0,
    }
