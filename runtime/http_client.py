"""The worker's shared HTTP client (the model and image providers' calls), whose direct connections read through
an asyncio protocol that keeps a buffer instead of httpcore's anyio streams.

A streamed model answer arrives a few tokens per network read, 40 reads a second per call, and a worker streams
dozens of calls at once. httpcore's anyio stream pays for every read: a cancel scope for its timeout, and a resume
and pause of the transport's reading (an epoll registration and removal) around each chunk. `AsyncioBackend`
keeps each connection reading into a buffer (paused only above `HIGH_WATER` bytes), and a read that finds data
returns it without waiting; one that does not waits on a future, its timeout a timer. Measured with 50 bodies
streamed at once at 40 chunks/s (`python -m tests.bench.http_reads`): the event loop's CPU per read went from
184-197 to 133-151 µs over TLS and from 155-177 to 98-111 µs over plain TCP (README, Performance).

Connections through a proxy from the environment (`HTTPS_PROXY`, ...) keep httpx's own backend: only the client's
direct pool is switched (`buffered_reads`), through httpx's and httpcore's private attributes, so a version that
moves them is reported at start and the client keeps working as it was.
"""

import asyncio
import logging
import select
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

log = logging.getLogger("runtime.http_client")

HIGH_WATER = 256 * 1024
"""Bytes a connection buffers before it stops reading from its socket (until a read takes them)."""
HAPPY_EYEBALLS_DELAY = 0.25
"""Seconds before the next address of a host is tried beside the first (RFC 8305), as anyio does."""

SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]


class _Buffered(asyncio.Protocol):
    """One connection's incoming bytes, its end, and who waits for them."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.chunks: list[bytes] = []
        self.size = 0
        self.ended = False
        self.error: Exception | None = None
        self.reader: asyncio.Future[None] | None = None
        self.writable: asyncio.Future[None] | None = None
        self.reading_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        if self.size > HIGH_WATER and not self.reading_paused and self.transport is not None:
            self.reading_paused = True
            self.transport.pause_reading()
        self._wake_reader()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake_reader()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self.error = exc
        self._wake_reader()
        self.resume_writing()

    def pause_writing(self) -> None:
        self.writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        waiter, self.writable = self.writable, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def take(self, max_bytes: int) -> bytes:
        """Up to `max_bytes` of what is buffered (there is some)."""
        data = self.chunks[0] if len(self.chunks) == 1 else b"".join(self.chunks)
        rest = data[max_bytes:]
        data = data[:max_bytes]
        self.chunks = [rest] if rest else []
        self.size = len(rest)
        if self.reading_paused and self.size <= HIGH_WATER // 2 and self.transport is not None:
            self.reading_paused = False
            self.transport.resume_reading()
        return data

    def _wake_reader(self) -> None:
        waiter, self.reader = self.reader, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


def _time_out(waiter: asyncio.Future[None], error: Exception) -> None:
    if not waiter.done():
        waiter.set_exception(error)


class AsyncioStream(httpcore.AsyncNetworkStream):
    """A connection for httpcore over `_Buffered`; its errors are httpcore's, which httpx maps onto its own."""

    def __init__(self, transport: asyncio.Transport, protocol: _Buffered) -> None:
        self._transport = transport
        self._protocol = protocol
        protocol.transport = transport

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.chunks and not protocol.ended:
            loop = asyncio.get_running_loop()
            protocol.reader = waiter = loop.create_future()
            timer = None if timeout is None else loop.call_later(timeout, _time_out, waiter, httpcore.ReadTimeout())
            try:
                await waiter
            finally:
                protocol.reader = None
                if timer is not None:
                    timer.cancel()
        if protocol.chunks:
            return protocol.take(max_bytes)
        if protocol.error is not None:
            raise httpcore.ReadError(str(protocol.error) or type(protocol.error).__name__)
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        self._transport.write(buffer)
        waiter = self._protocol.writable
        if waiter is None:
            return
        try:
            async with asyncio.timeout(timeout):
                await asyncio.shield(waiter)
        except TimeoutError as err:
            raise httpcore.WriteTimeout() from err
        if self._protocol.error is not None or self._transport.is_closing():
            raise httpcore.WriteError("the connection closed while writing")

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            secure = await loop.start_tls(
                self._transport,
                self._protocol,
                ssl_context,
                server_hostname=server_hostname,
                ssl_handshake_timeout=timeout,
            )
        except TimeoutError as err:
            self._transport.close()
            raise httpcore.ConnectTimeout() from err
        except (OSError, ssl.SSLError, ConnectionError) as err:
            self._transport.close()
            raise httpcore.ConnectError(str(err)) from err
        if secure is None:
            raise httpcore.ConnectError("the connection closed during the TLS handshake")
        assert isinstance(secure, asyncio.Transport)
        return AsyncioStream(secure, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        if info == "is_readable":
            return bool(self._protocol.chunks) or self._protocol.ended or _socket_readable(self._transport)
        return None


def _socket_readable(transport: asyncio.Transport) -> bool:
    """Whether bytes or an end wait in the socket (an idle connection the server closed, not yet seen)."""
    sock = transport.get_extra_info("socket")
    if sock is None or sock.fileno() < 0:
        return True
    poll = select.poll()
    poll.register(sock.fileno(), select.POLLIN)
    return bool(poll.poll(0))


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Opens `AsyncioStream` connections (TCP, Unix sockets)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        connecting = loop.create_connection(
            _Buffered,
            host,
            port,
            local_addr=(local_address, 0) if local_address else None,
            happy_eyeballs_delay=HAPPY_EYEBALLS_DELAY,
        )
        return await _connected(connecting, timeout, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SocketOption] | None = None
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        return await _connected(loop.create_unix_connection(_Buffered, path), timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connected(
    connecting: Any, timeout: float | None, socket_options: Iterable[SocketOption] | None
) -> AsyncioStream:
    """The connection `connecting` opens within `timeout`, its socket given `socket_options`."""
    try:
        async with asyncio.timeout(timeout):
            transport, protocol = await connecting
    except TimeoutError as err:
        raise httpcore.ConnectTimeout() from err
    except OSError as err:  # refused, unreachable, a name that does not resolve (gaierror)
        raise httpcore.ConnectError(str(err)) from err
    sock = transport.get_extra_info("socket")
    for option in socket_options or ():
        sock.setsockopt(*option)
    return AsyncioStream(transport, protocol)


def buffered_reads(client: httpx.AsyncClient) -> bool:
    """Switch `client`'s direct connections to `AsyncioBackend` (before its first request); False, and a warning,
    when this httpx keeps its pool elsewhere (the client then reads through its own backend, as before)."""
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if type(pool) is not httpcore.AsyncConnectionPool or not hasattr(pool, "_network_backend"):
        log.warning(
            "httpx %s: its connection pool was not found; HTTP reads stay on its own backend", httpx.__version__
        )
        return False
    pool._network_backend = AsyncioBackend()
    return True


def shared_http_client(timeout: float) -> httpx.AsyncClient:
    """The worker's client for the providers' calls: httpx's defaults (proxies from the environment too), `timeout`
    for each step unless a call says otherwise, and direct connections read through `AsyncioBackend`."""
    client = httpx.AsyncClient(timeout=httpx.Timeout(timeout))
    buffered_reads(client)
    return client
