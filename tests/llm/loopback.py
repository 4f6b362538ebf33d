"""A loopback HTTP server that replays recorded provider responses (fixtures) and records what it was sent.

A fixture is an `.http` file under `tests/fixtures/llm/<protocol>/`: a status line, headers, a blank line, then
the body exactly as the provider sends it (a JSON document, or an SSE stream). Lines starting with `#` before the
status line are comments. Bodies are sent with `Transfer-Encoding: chunked`, cut at fixed odd offsets, so a
client must reassemble SSE lines and UTF-8 characters across network reads.

The server runs in a thread, so synchronous SDK clients and asyncio clients in the test's loop can both call it.
Each request takes the next queued fixture; a request with nothing queued gets a 599 and fails the test.
The `loopback` pytest fixture (tests/conftest.py) empties it before each test.
"""

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "llm"
CHUNK_SIZES = (7, 64, 13, 256, 3, 101)
"""Successive chunk lengths (cycled) the body is cut into."""


@dataclass(frozen=True)
class Fixture:
    """One recorded answer: status, headers and body bytes, with optional stalls to imitate a slow provider."""

    status: int
    headers: dict[str, str]
    body: bytes
    stall_before: float = 0.0
    """Seconds to wait before sending the status line (a provider that is slow to answer)."""
    stall_after: tuple[int, float] | None = None
    """(bytes, seconds): pause for `seconds` after the first `bytes` of the body (a stream that stalls)."""

    @classmethod
    def load(cls, name: str, **overrides: Any) -> "Fixture":
        """`name` is `<protocol>/<file stem>`, e.g. `anthropic/text_stream`."""
        return cls.parse((FIXTURES / f"{name}.http").read_bytes(), **overrides)

    @classmethod
    def parse(cls, raw: bytes, **overrides: Any) -> "Fixture":
        lines = raw.split(b"\n")
        while lines and (lines[0].startswith(b"#") or not lines[0].strip()):
            lines.pop(0)
        status = int(lines.pop(0).split()[1])
        headers: dict[str, str] = {}
        while lines and lines[0].strip():
            name, _, value = lines.pop(0).decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        body = b"\n".join(lines[1:])
        return cls(status=status, headers=headers, body=body, **overrides)

    @classmethod
    def json(cls, document: Any, status: int = 200, headers: dict[str, str] | None = None) -> "Fixture":
        body = json.dumps(document, ensure_ascii=False).encode()
        return cls(status=status, headers={"content-type": "application/json", **(headers or {})}, body=body)


@dataclass
class RecordedRequest:
    """A request as the loopback server received it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (a timeout, a cancelled call, an SDK dropping a keep-alive connection) is
        normal here; anything else is still reported."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class Loopback:
    """Hands out queued fixtures in order; `requests` holds every request received."""

    requests: list[RecordedRequest] = field(default_factory=list)
    unexpected: list[RecordedRequest] = field(default_factory=list)
    """Requests that found nothing queued (answered 599)."""
    responder: Callable[[RecordedRequest], Fixture | None] | None = None
    """Answers by what a request says instead of in queue order (runs whose LLM calls happen side by side)."""
    _queue: deque[Fixture] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: _QuietServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "the loopback server is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def queue(self, *fixtures: Fixture | str) -> None:
        with self._lock:
            self._queue.extend(f if isinstance(f, Fixture) else Fixture.load(f) for f in fixtures)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.responder = None
            self.requests.clear()
            self.unexpected.clear()

    def _next(self, request: RecordedRequest) -> Fixture | None:
        with self._lock:
            self.requests.append(request)
            if self.responder is not None:
                return self.responder(request)
            if not self._queue:
                self.unexpected.append(request)
                return None
            return self._queue.popleft()

    def start(self) -> None:
        self._server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        threading.Thread(target=self._server.serve_forever, name="llm-loopback", daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def _handler_for(loopback: Loopback) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test output is the log."""

        def do_GET(self) -> None:
            self._replay()

        def do_POST(self) -> None:
            self._replay()

        def _replay(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            url = urlsplit(self.path)
            recorded = RecordedRequest(
                method=self.command,
                path=url.path,
                query=parse_qs(url.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
            fixture = loopback._next(recorded)
            if fixture is None:
                fixture = Fixture.json({"error": f"no fixture queued for {self.command} {self.path}"}, status=599)
            time.sleep(fixture.stall_before)
            self.send_response(fixture.status)
            for name, value in fixture.headers.items():
                if name not in ("content-length", "transfer-encoding"):
                    self.send_header(name, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                self._send_chunked(fixture)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (a timeout or a cancelled call)

        def _send_chunked(self, fixture: Fixture) -> None:
            sent, index = 0, 0
            body = fixture.body
            while sent < len(body):
                size = CHUNK_SIZES[index % len(CHUNK_SIZES)]
                if fixture.stall_after is not None and sent < fixture.stall_after[0] < sent + size:
                    size = fixture.stall_after[0] - sent
                chunk = body[sent : sent + size]
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()
                sent += len(chunk)
                index += 1
                if fixture.stall_after is not None and sent == fixture.stall_after[0]:
                    time.sleep(fixture.stall_after[1])
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler
