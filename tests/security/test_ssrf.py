"""Image URLs cannot reach inside: a listener on loopback must receive zero requests for every form of an inside
address, whether external images are off (the gateway refuses the URL, nothing stored) or on (the run's guarded
fetch refuses it, and the error says nothing about the target)."""

import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from imaging.fetch import FAILED_MESSAGE, FORBIDDEN_MESSAGE, GuardedImageFetcher, is_public_address
from stores.blob_refs import ImageRefError
from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.api.image.test_chat import mask_png
from tests.sse import parse_sse


class Listener:
    """An HTTP server on loopback that counts what reaches it (and would serve a valid PNG)."""

    def __init__(self) -> None:
        self.hits = 0
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                listener.hits += 1
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]

    def forbidden_urls(self) -> list[str]:
        p = self.port
        return [
            f"http://127.0.0.1:{p}/a.png",
            f"http://localhost:{p}/a.png",
            f"http://[::1]:{p}/a.png",
            f"http://2130706433:{p}/a.png",  # 127.0.0.1 as a decimal
            f"http://0x7f000001:{p}/a.png",  # as hex
            f"http://127.1:{p}/a.png",
            f"http://0.0.0.0:{p}/a.png",
            f"http://[::ffff:127.0.0.1]:{p}/a.png",  # IPv4-mapped IPv6
            f"https://127.0.0.1:{p}/a.png",
            f"http://user:pw@example.com@127.0.0.1:{p}/a.png",
            "http://169.254.169.254/latest/meta-data/",  # link-local (cloud metadata)
            "http://10.0.0.1/a.png",
            "http://192.168.1.1/a.png",
            "http://100.64.0.1/a.png",  # shared address space
            "http://[fe80::1]/a.png",
            "http://224.0.0.1/a.png",
        ]


@pytest.fixture
def listener() -> Iterator[Listener]:
    running = Listener()
    thread = threading.Thread(target=running.server.serve_forever, daemon=True)
    thread.start()
    yield running
    running.server.shutdown()
    running.server.server_close()


@pytest.fixture
async def external_allowed(
    env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[Gateway]:
    async with running_gateway(env, tmp_path, api_style_store, allow_external_images=True) as gateway:
        yield gateway


async def test_the_guarded_fetch_sends_nothing_to_any_inside_address(listener: Listener) -> None:
    async with httpx.AsyncClient() as http:
        fetcher = GuardedImageFetcher(http, max_bytes=1 << 20, timeout_seconds=2)
        for url in listener.forbidden_urls():
            with pytest.raises(ImageRefError) as refused:
                await fetcher.fetch(url)
            assert (refused.value.code, refused.value.message) == ("IMAGE_URL_FORBIDDEN", FORBIDDEN_MESSAGE), url

    assert listener.hits == 0


async def test_a_redirect_is_not_followed_and_the_failure_names_nothing(listener: Listener) -> None:
    def public_host(request: httpx.Request) -> httpx.Response:  # stands in for a public host that redirects inside
        return httpx.Response(302, headers={"location": f"http://127.0.0.1:{listener.port}/a.png"})

    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    async with httpx.AsyncClient(transport=httpx.MockTransport(public_host)) as http:
        fetcher = GuardedImageFetcher(http, max_bytes=1 << 20, timeout_seconds=2, resolve=resolve)
        with pytest.raises(ImageRefError) as failed:
            await fetcher.fetch("https://images.example/a.png")

    assert (failed.value.code, failed.value.message) == ("IMAGE_FETCH_FAILED", FAILED_MESSAGE)
    assert listener.hits == 0


async def test_a_name_that_resolves_inside_even_once_is_refused() -> None:
    async def rebinding(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "127.0.0.1"]

    async with httpx.AsyncClient() as http:
        fetcher = GuardedImageFetcher(http, max_bytes=1 << 20, timeout_seconds=2, resolve=rebinding)
        with pytest.raises(ImageRefError) as refused:
            await fetcher.fetch("https://images.example/a.png")

    assert refused.value.code == "IMAGE_URL_FORBIDDEN"


@pytest.mark.parametrize(
    ("address", "public"),
    [("93.184.216.34", True), ("2606:2800:220:1::1", True), ("127.0.0.1", False), ("::ffff:10.0.0.1", False)],
)
def test_only_global_unicast_addresses_are_public(address: str, public: bool) -> None:
    assert is_public_address(address) is public


async def test_with_external_images_off_the_gateway_refuses_and_stores_nothing(
    gateway: Gateway, listener: Listener
) -> None:
    for url in [*listener.forbidden_urls(), "https://images.example/a.png"]:
        response = await gateway.http.post(
            "/api/agent/chat",
            json={"text": "换成花", "maskData": {"base64": mask_png((8, 8), (0, 0, 4, 4)), "imageUrl": url}},
        )
        assert response.status_code == 422, url
        assert response.json()["error"]["code"] == "IMAGE_URL_FORBIDDEN"

    assert listener.hits == 0
    assert not gateway.settings.blob_dir.exists() or not any(gateway.settings.blob_dir.rglob("*.*"))


async def test_with_external_images_on_the_run_refuses_inside_addresses_without_a_request(
    external_allowed: Gateway, listener: Listener
) -> None:
    for number, url in enumerate(listener.forbidden_urls()[:4]):
        session = f"ssrf{number}"
        response = await external_allowed.http.post(
            "/api/agent/chat",
            json={
                "text": "换成花",
                "sessionId": session,
                "maskData": {"base64": mask_png((8, 8), (0, 0, 4, 4)), "imageUrl": url},
            },
        )
        external_allowed.sessions.add(f"session-local-{session}")
        errors = [e.data["data"] for e in parse_sse(response.text) if e.event == "error"]
        assert [(e["code"], e["message"]) for e in errors] == [("IMAGE_URL_FORBIDDEN", FORBIDDEN_MESSAGE)], url

    assert listener.hits == 0
