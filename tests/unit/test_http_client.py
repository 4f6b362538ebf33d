"""The worker's HTTP client (`runtime.http_client`): its direct connections read through `AsyncioBackend`, and
what httpx promises still holds on them: a body streamed in pieces over plain TCP and over TLS, a body far larger
than the read buffer, the read timeout, a connection cut mid-body, a kept-alive connection the server closed, a
cancelled read. The LLM client's own suite (tests/llm) runs on the same client."""

import asyncio
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpcore
import httpx
import pytest

from runtime.http_client import HIGH_WATER, AsyncioBackend, buffered_reads, shared_http_client
from tests.self_signed import write_self_signed

PIECES = [f"data: piece {i}\n\n".encode() for i in range(20)]
LARGE = bytes(range(256)) * (4 * HIGH_WATER // 256 + 7)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/pieces":
            self._chunked(PIECES, pause=0.005)
        elif self.path == "/large":
            self._whole(LARGE)
        elif self.path == "/stall":
            self._chunked(PIECES[:1], pause=0, finish=False)
            time.sleep(2)
            self.close_connection = True
        elif self.path == "/cut":
            self._chunked(PIECES[:3], pause=0, finish=False)
            self.close_connection = True
        elif self.path == "/once":
            self._whole(b"ok")
            self.close_connection = True
        else:
            self._whole(b"ok")

    def _whole(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _chunked(self, pieces: list[bytes], *, pause: float, finish: bool = True) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for piece in pieces:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
            time.sleep(pause)
        if finish:
            self.wfile.write(b"0\r\n\r\n")


def _serve(context: ssl.SSLContext | None) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    scheme = "https" if context is not None else "http"
    yield f"{scheme}://localhost:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def plain_server() -> Iterator[str]:
    yield from _serve(None)


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    return write_self_signed(tmp_path)


@pytest.fixture
def tls_server(certificate: tuple[Path, Path]) -> Iterator[str]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    yield from _serve(context)


def _buffered_client(**options: Any) -> httpx.AsyncClient:
    client = httpx.AsyncClient(trust_env=False, **options)
    assert buffered_reads(client)
    return client


async def _pieces(client: httpx.AsyncClient, url: str) -> list[bytes]:
    async with client.stream("GET", url) as response:
        return [piece async for piece in response.aiter_raw()]


def test_the_shared_client_reads_its_direct_connections_through_the_asyncio_backend() -> None:
    client = shared_http_client(4.0)
    assert isinstance(client._transport._pool._network_backend, AsyncioBackend)  # type: ignore[attr-defined]
    assert client.timeout.read == 4.0


async def test_a_streamed_body_arrives_piece_by_piece_and_whole(plain_server: str) -> None:
    async with _buffered_client() as client:
        pieces = await _pieces(client, f"{plain_server}/pieces")
    assert b"".join(pieces) == b"".join(PIECES)
    assert len(pieces) > len(PIECES) // 2  # read as it came, not once at the end


async def test_a_streamed_body_over_tls(tls_server: str, certificate: tuple[Path, Path]) -> None:
    async with _buffered_client(verify=ssl.create_default_context(cafile=str(certificate[0]))) as client:
        pieces = await _pieces(client, f"{tls_server}/pieces")
        again = await client.get(f"{tls_server}/large")
    assert b"".join(pieces) == b"".join(PIECES)
    assert again.content == LARGE


async def test_an_untrusted_certificate_is_a_connect_error(tls_server: str) -> None:
    async with _buffered_client() as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"{tls_server}/pieces")


async def test_a_body_larger_than_the_read_buffer_arrives_whole(plain_server: str) -> None:
    async with _buffered_client() as client:
        response = await client.get(f"{plain_server}/large")
    assert response.content == LARGE


async def test_a_silent_server_is_a_read_timeout(plain_server: str) -> None:
    async with _buffered_client(timeout=httpx.Timeout(5.0, read=0.3)) as client:
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            await _pieces(client, f"{plain_server}/stall")
    assert time.monotonic() - started < 1.5


async def test_a_body_cut_mid_stream_is_an_error_not_a_short_answer(plain_server: str) -> None:
    async with _buffered_client() as client:
        with pytest.raises(httpx.RemoteProtocolError):
            await _pieces(client, f"{plain_server}/cut")


async def test_a_kept_alive_connection_the_server_closed_is_not_reused(plain_server: str) -> None:
    async with _buffered_client() as client:
        assert (await client.get(f"{plain_server}/once")).text == "ok"  # the server closes after answering
        await asyncio.sleep(0.1)
        assert (await client.get(f"{plain_server}/")).text == "ok"


async def test_a_cancelled_read_leaves_the_client_usable(plain_server: str) -> None:
    async with _buffered_client() as client:
        reading = asyncio.create_task(_pieces(client, f"{plain_server}/stall"))
        await asyncio.sleep(0.2)
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        assert (await client.get(f"{plain_server}/")).text == "ok"


async def test_a_refused_connection_is_a_connect_error() -> None:
    with pytest.raises(httpcore.ConnectError):
        await AsyncioBackend().connect_tcp("127.0.0.1", 1, timeout=2.0)
