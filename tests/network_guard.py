"""The guard that keeps tests off the network (installed for the whole session by tests/conftest.py): a connection
to anything but a loopback address or a unix socket fails loudly. In live mode (tests/live/mode.py) the one
exception is the configured provider: the addresses its host name resolved to, as the resolver answered them."""

import _socket
import ipaddress
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from typing_extensions import Buffer

Address = tuple[Any, ...] | str | Buffer


def _is_local(address: Address) -> bool:
    if isinstance(address, str):  # a unix socket path
        return True
    if not isinstance(address, tuple):
        return False
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class NetworkGuard:
    """Refuses connections off this machine, except to the addresses `provider_host` resolved to."""

    def __init__(self, provider_host: str | None, resolve: Callable[..., Any] = socket.getaddrinfo) -> None:
        self._provider_host = provider_host
        self._resolve = resolve
        self._provider_addresses: set[str] = set()

    def allows(self, address: Address) -> bool:
        return _is_local(address) or (isinstance(address, tuple) and address[0] in self._provider_addresses)

    def getaddrinfo(self, host: bytes | str | None, *args: Any, **kwargs: Any) -> Any:
        """The resolver's answer; for the provider's host, its addresses become allowed."""
        found = self._resolve(host, *args, **kwargs)
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and name == self._provider_host:
            self._provider_addresses.update(str(info[4][0]) for info in found)
        return found

    @contextmanager
    def installed(self) -> Iterator[None]:
        original_connect, original_getaddrinfo = socket.socket.connect, socket.getaddrinfo
        guard = self

        def guarded(self: _socket.socket, address: Address) -> None:
            if not guard.allows(address):
                raise RuntimeError(f"test tried to reach the network: {address!r}")
            original_connect(self, address)

        socket.socket.connect = guarded  # type: ignore[method-assign]
        if self._provider_host is not None:
            socket.getaddrinfo = self.getaddrinfo
        try:
            yield
        finally:
            socket.socket.connect = original_connect  # type: ignore[method-assign]
            socket.getaddrinfo = original_getaddrinfo
