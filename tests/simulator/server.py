"""The simulator's loopback HTTP server: OpenAI Chat Completions (`POST /v1/chat/completions`) and Anthropic
Messages (`POST /v1/messages`), whole or streamed, and OpenAI Images (`POST /v1/images/generations`, `images`),
paced by a latency profile, with the scheduled quirk of each request, and a log of every request.

It runs in a thread (the loopback server's `_QuietServer`, tests/llm/loopback.py), so synchronous clients and
asyncio clients in the test's loop can both call it. Configure it by setting its fields between requests.
"""

import json
import select
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.llm.loopback import _QuietServer
from tests.simulator import images
from tests.simulator.answers import Answer, AnswerStyle, Kind, build_answer, request_rng
from tests.simulator.profiles import INSTANT, Profile
from tests.simulator.quirks import TRANSPORT_QUIRKS, Quirk, QuirkRule, scheduled
from tests.simulator.requests import Protocol, SimRequest, parse_request
from tests.simulator.text import count_tokens
from tests.simulator.wire import CREATED, SseItem, Wire

PATHS: dict[str, Protocol] = {
    "/v1/chat/completions": "openai_chat",
    "/chat/completions": "openai_chat",
    "/v1/messages": "anthropic",
    **{path: "openai_images" for path in images.PATHS},
}
POLL = 0.02
"""Seconds between checks, while waiting, that the client is still there."""


class ClientGone(Exception):
    """The client closed the connection (it gave up) or the simulator was reset."""


@dataclass
class LoggedCall:
    """One request and what the simulator did with it."""

    number: int
    """From 1, in arrival order."""
    protocol: Protocol
    request: SimRequest
    quirk: Quirk | None
    """The quirk the request showed (a scheduled content quirk that could not apply is not here)."""
    kind: Kind | None
    """What the answer was; None for a transport quirk that sent none (429, 500, hang)."""
    status: int
    text: str
    """The answer's content as written (a cut stream sends less of it)."""
    value: Any
    """The JSON value of a JSON answer, None otherwise."""
    tool_calls: list[tuple[str, dict[str, Any] | str]]
    """(name, arguments: decoded, or the raw text when truncation cut them)."""
    finish: str | None
    answer_tokens: int
    answer_chars: int
    generation_seconds: float
    """How long the profile (and time_scale) made the answer take, first byte to last (an image: until its body)."""
    body: dict[str, Any] = field(repr=False, default_factory=dict)
    """The request body as received."""
    started: float = 0.0
    """`time.monotonic()` when the request was admitted (its body read)."""
    first_token: float | None = None
    """`time.monotonic()` when the first byte of the answer's output was written (a streamed answer: its first
    token; a whole answer: its body); None when none was sent."""
    ended: float | None = None
    """`time.monotonic()` when the answer's last byte was written; None when it was not (a hang, a client gone)."""
    token_times: list[float] = field(default_factory=list)
    """A streamed answer: `time.monotonic()` when each of its output tokens was written, in order."""


@dataclass
class Simulator:
    """A simulated model; every field is configuration a test may change, except `log`."""

    seed: int = 0
    profile: Profile = INSTANT
    time_scale: float = 1.0
    """Multiplies every delay of the profile: 0.05 runs it 20× faster."""
    quirks: list[QuirkRule] = field(default_factory=list)
    style: AnswerStyle = field(default_factory=AnswerStyle)
    retry_after: int = 1
    """Seconds, in the Retry-After of a 429."""
    log: list[LoggedCall] = field(default_factory=list)
    _count: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _released: threading.Event = field(default_factory=threading.Event)
    _server: _QuietServer | None = None

    @property
    def base_url(self) -> str:
        """Scheme, host and port; the OpenAI base URL is this plus `/v1`, the Anthropic one this itself."""
        assert self._server is not None, "the simulator is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self._server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        threading.Thread(target=self._server.serve_forever, name="model-simulator", daemon=True).start()

    def stop(self) -> None:
        self._released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def reset(self) -> None:
        """Back to the defaults (instant, no quirks, seed 0) with an empty log; a hanging request is let go."""
        with self._lock:
            self._released.set()
            self._released = threading.Event()
            self.seed, self.profile, self.time_scale, self.quirks = 0, INSTANT, 1.0, []
            self.style, self.retry_after, self._count = AnswerStyle(), 1, 0
            self.log.clear()

    def _admit(self, protocol: Protocol, body: dict[str, Any]) -> "_Exchange":
        """Numbers the request and takes the configuration it is answered with (under the lock), then picks its
        quirk, builds its answer and logs it."""
        started = time.monotonic()
        with self._lock:
            self._count += 1
            number, released, seed, style = self._count, self._released, self.seed, self.style
            profile, time_scale, retry_after = self.profile, self.time_scale, self.retry_after
            quirk = scheduled(self.quirks, number, seed)
        request = parse_request(protocol, body)
        rng = request_rng(seed, body)
        if protocol == "openai_images":  # no content quirk applies to an image
            answer, generation = Answer("image", ""), profile.image_seconds * time_scale
        else:
            answer = build_answer(request, rng, None if quirk in TRANSPORT_QUIRKS else quirk, style)
            generation = profile.generation_time(answer.tokens, time_scale)
        sent = answer if quirk not in (Quirk.RATE_LIMIT, Quirk.SERVER_ERROR, Quirk.HANG) else None
        entry = LoggedCall(
            number=number,
            protocol=protocol,
            request=request,
            quirk=quirk if quirk in TRANSPORT_QUIRKS else answer.quirk,
            kind=sent.kind if sent else None,
            status={Quirk.RATE_LIMIT: 429, Quirk.SERVER_ERROR: 500}.get(quirk, 200) if quirk else 200,
            text=sent.text if sent else "",
            value=sent.value if sent else None,
            tool_calls=[(c.name, _arguments(c.arguments)) for c in sent.tool_calls] if sent else [],
            finish=sent.finish if sent else None,
            answer_tokens=sent.tokens if sent else 0,
            answer_chars=len(sent.text) + sum(len(c.arguments) for c in sent.tool_calls) if sent else 0,
            generation_seconds=generation if sent else 0.0,
            body=body,
            started=started,
        )
        with self._lock:
            self.log.append(entry)
        prompt = request.system + "".join(text for _, text in request.messages)
        wire = Wire(protocol, f"{rng.getrandbits(96):024x}", request.model or "simulated-model", count_tokens(prompt))
        return _Exchange(entry, sent, wire, released, profile, time_scale, retry_after)


@dataclass(frozen=True)
class _Exchange:
    """One request being answered: its log entry, the answer to send (None for a 429, a 500 or a hang), and the
    configuration it was admitted under."""

    entry: LoggedCall
    answer: Answer | None
    wire: Wire
    released: threading.Event
    profile: Profile
    time_scale: float
    retry_after: int


def _arguments(raw: str) -> dict[str, Any] | str:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return raw
    return value if isinstance(value, dict) else raw


def _handler_for(simulator: Simulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the simulator's own log is what tests read."""

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            protocol = PATHS.get(self.path.split("?", 1)[0])
            if protocol is None:
                self._send_json(404, {"error": {"message": f"the simulator has no {self.path}"}})
                return
            try:
                document = json.loads(raw)
            except json.JSONDecodeError as err:
                self._send_json(400, {"error": {"message": f"the body is not JSON: {err}"}})
                return
            if protocol == "openai_images" and (error := images.request_error(document)) is not None:
                self._send_json(400, {"error": {"message": error, "type": "invalid_request_error", "code": None}})
                return
            try:
                self._answer(simulator._admit(protocol, document))
            except (ClientGone, BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _answer(self, exchange: _Exchange) -> None:
            entry, answer, wire, released = exchange.entry, exchange.answer, exchange.wire, exchange.released
            if entry.quirk == Quirk.HANG:
                self._wait(float("inf"), released)
            if answer is None:  # a 429 or a 500
                headers = {"retry-after": str(exchange.retry_after)} if entry.status == 429 else {}
                self._send_json(entry.status, wire.error(entry.status, exchange.retry_after), headers)
                return
            start = time.monotonic()
            profile, scale, cut = exchange.profile, exchange.time_scale, entry.quirk == Quirk.CUT_STREAM
            if entry.request.stream:
                stream_options = entry.body.get("stream_options") or {}
                items = wire.events(answer, include_usage=bool(stream_options.get("include_usage")))
                self._stream(entry, items, start, profile, scale, released, cut=cut)
                entry.ended = time.monotonic()
                return
            # an image is drawn (once per size) while it is due
            body = images.image_body(entry.body, CREATED) if entry.protocol == "openai_images" else wire.body(answer)
            self._wait(start + entry.generation_seconds, released)
            entry.first_token = time.monotonic()
            self._send_json(200, body, cut=cut)
            entry.ended = time.monotonic()

        def _stream(
            self,
            entry: LoggedCall,
            items: list[SseItem],
            start: float,
            profile: Profile,
            scale: float,
            released: threading.Event,
            *,
            cut: bool,
        ) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream; charset=utf-8")
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            sent_tokens = 0
            total = sum(item.tokens for item in items)
            for item in items:
                if cut and sent_tokens >= total // 2:
                    self.wfile.flush()
                    self.close_connection = True  # no closing chunk: the client sees the body end mid-stream
                    return
                if item.tokens:
                    self._wait(start + profile.token_time(sent_tokens, scale), released)
                    sent_tokens += item.tokens
                self.wfile.write(f"{len(item.data):x}\r\n".encode() + item.data + b"\r\n")
                self.wfile.flush()
                if item.tokens:
                    entry.token_times += [time.monotonic()] * item.tokens
                if item.tokens and entry.first_token is None:
                    entry.first_token = entry.token_times[0]
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _send_json(
            self, status: int, document: dict[str, Any], headers: dict[str, str] | None = None, *, cut: bool = False
        ) -> None:
            body = json.dumps(document, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2] if cut else body)
            self.wfile.flush()
            if cut:
                self.close_connection = True

        def _wait(self, deadline: float, released: threading.Event) -> None:
            """Sleeps until `deadline` (monotonic); raises `ClientGone` as soon as the client hangs up or the
            simulator is reset."""
            while (left := deadline - time.monotonic()) > 0:
                if released.wait(min(left, POLL)) or self._client_gone():
                    raise ClientGone
            if self._client_gone():
                raise ClientGone

        def _client_gone(self) -> bool:
            try:
                readable, _, _ = select.select([self.connection], [], [], 0)
                return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                return True

    return Handler
