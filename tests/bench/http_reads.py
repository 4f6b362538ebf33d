"""`python -m tests.bench.http_reads`: the event loop's CPU per network read of streamed bodies, httpx's own backend
against the worker's (`runtime.http_client.AsyncioBackend`), over plain TCP and over TLS.

A loopback server in its own process sends `--streams` chunked bodies at once, each a model's SSE chunk
(`data: {"choices": ...}`) every 1/`--rate` s, `--chunks` of them; the client reads them with `aiter_raw`, as the
LLM client does, and reports the CPU time of its event loop's thread per read (one chunk a read at this pace).
The four combinations run in turn, `--rounds` times, so the machine's drift falls on both backends alike.
"""

import argparse
import asyncio
import ssl
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from runtime.http_client import buffered_reads
from tests.self_signed import write_self_signed

CHUNK = 'data: {"choices":[{"index":0,"delta":{"content":"你好"}}]}\n\n'.encode()


def serve(certificate: Path | None, key: Path | None, chunks: int, rate: float) -> None:
    """The server process: prints its port, then streams `chunks` chunks per request at `rate` a second."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            started = time.monotonic()
            for index in range(chunks):
                time.sleep(max(0.0, started + index / rate - time.monotonic()))
                self.wfile.write(b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

    ThreadingHTTPServer.request_queue_size = 256
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if certificate is not None and key is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    sys.stdout.write(f"{server.server_address[1]}\n")
    sys.stdout.flush()
    server.serve_forever()


async def cpu_per_read(url: str, certificate: Path, *, buffered: bool, streams: int) -> float:
    """Microseconds of this thread's CPU per read over `streams` bodies read at once (after one to warm up)."""
    verify = ssl.create_default_context(cafile=str(certificate))
    limits = httpx.Limits(max_connections=streams, max_keepalive_connections=streams)
    async with httpx.AsyncClient(verify=verify, limits=limits, trust_env=False, timeout=60) as client:
        if buffered and not buffered_reads(client):
            raise SystemExit("this httpx keeps its connection pool elsewhere: the worker's backend is not in use")
        reads = 0

        async def read_one() -> None:
            nonlocal reads
            async with client.stream("GET", url) as response:
                async for _ in response.aiter_raw():
                    reads += 1

        await read_one()
        reads = 0
        started = time.thread_time()
        await asyncio.gather(*(read_one() for _ in range(streams)))
        return (time.thread_time() - started) / reads * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.http_reads", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--streams", type=int, default=50, help="bodies read at once (default 50)")
    parser.add_argument("--chunks", type=int, default=200, help="chunks per body (default 200)")
    parser.add_argument("--rate", type=float, default=40.0, help="chunks a second per body (default 40)")
    parser.add_argument("--rounds", type=int, default=2, help="times each combination runs (default 2)")
    parser.add_argument("--serve", nargs="*", metavar="CERT KEY", help=argparse.SUPPRESS)  # plain TCP without them
    args = parser.parse_args()
    if args.serve is not None:
        certificate, key = map(Path, args.serve) if args.serve else (None, None)
        serve(certificate, key, args.chunks, args.rate)
        return
    with tempfile.TemporaryDirectory() as directory:
        certificate, key = write_self_signed(Path(directory))
        results: dict[tuple[str, str], list[float]] = {}
        for scheme in ("https", "http"):
            argv = [
                sys.executable,
                "-m",
                "tests.bench.http_reads",
                "--chunks",
                str(args.chunks),
                "--rate",
                str(args.rate),
            ]
            argv += ["--serve", str(certificate), str(key)] if scheme == "https" else ["--serve"]
            server = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
            try:
                assert server.stdout is not None
                url = f"{scheme}://localhost:{server.stdout.readline().strip()}/"
                for _ in range(args.rounds):
                    for backend in ("httpx", "worker"):
                        buffered = backend == "worker"
                        took = asyncio.run(cpu_per_read(url, certificate, buffered=buffered, streams=args.streams))
                        results.setdefault((scheme, backend), []).append(took)
            finally:
                server.kill()
                server.wait()
    lines = [
        f"{args.streams} bodies at once, {args.chunks} chunks each at {args.rate:g}/s: event-loop CPU per read, µs",
        "| connection | httpx's backend (anyio) | the worker's (runtime.http_client) |",
        "| --- | --- | --- |",
    ]
    for scheme, label in (("https", "TLS"), ("http", "plain TCP")):
        cells = [", ".join(f"{v:.0f}" for v in results[(scheme, backend)]) for backend in ("httpx", "worker")]
        lines.append(f"| {label} | {cells[0]} | {cells[1]} |")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
