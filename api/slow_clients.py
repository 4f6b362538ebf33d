"""Deadlines for clients that send slowly, which uvicorn does not set: a connection that sends part of a request
(or nothing) was held for as long as the client liked, and five hundred of them held the gateway's sockets.

- **Headers:** a request's headers must arrive within `HEADER_SECONDS` of its first byte (of the connection's
  opening, for its first request); else the connection is closed (`HeaderDeadlineProtocol`, the HTTP/1.1
  protocol `api.server` runs uvicorn with).
- **Bodies:** `api.body_limits.BodyLimitMiddleware` gives a body `BODY_IDLE_SECONDS` between two chunks and
  `BODY_SECONDS` in all (a 95 MB mask at a megabyte a second fits), else 408 `REQUEST_TIMEOUT`.
- **Connections:** at most `GATEWAY_MAX_CONNECTIONS` (1000) connections and requests at once; uvicorn answers
  past them with 503.

A proxy in front (nginx, a cloud load balancer) should set its own: `client_header_timeout` and
`client_body_timeout` (10-60 s), a connection limit per client address, and buffering of request bodies.
"""

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0
BODY_IDLE_SECONDS = 30.0
BODY_SECONDS = 300.0


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request headers take over `HEADER_SECONDS`."""

    _headers_due: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._expect_headers()

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:  # the start of a request (a kept-alive connection's next one)
            self._expect_headers()
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # its headers have all come
            self._headers_came()

    def connection_lost(self, exc: Exception | None) -> None:
        self._headers_came()
        super().connection_lost(exc)

    def _expect_headers(self) -> None:
        if self._headers_due is None:
            self._headers_due = self.loop.call_later(HEADER_SECONDS, self._headers_late)

    def _headers_came(self) -> None:
        if self._headers_due is not None:
            self._headers_due.cancel()
            self._headers_due = None

    def _headers_late(self) -> None:
        self._headers_due = None
        if not self.transport.is_closing():
            self.transport.close()
