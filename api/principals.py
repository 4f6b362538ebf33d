"""Who is calling: API keys from settings, checked in constant time, and the principal each one names.

`API_KEYS=alice=sha256:<hex>,bob=sha256:<hex>` stores each key's SHA-256 (`python -m api.principals <key>`
prints it); `name=key` is accepted too, for local use. A request sends `Authorization: Bearer <key>`. With no
keys configured the gateway serves one principal, `local`, and refuses to listen on anything but loopback
(`api.server`). Every run and session records its principal as its `Owner` search attribute; the routes answer
404 to any other principal (`api.ownership`).
"""

import hashlib
import hmac
import ipaddress
import re
import sys
from dataclasses import dataclass, field

LOCAL_PRINCIPAL = "local"
PRINCIPAL_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_HASHED = re.compile(r"^sha256:([0-9a-fA-F]{64})$")


class KeyConfigError(ValueError):
    """`API_KEYS` cannot be read; the message names the entry."""


@dataclass(frozen=True)
class KeyRing:
    """The configured keys, as SHA-256 digests by principal name."""

    digests: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def parse(cls, spec: str) -> "KeyRing":
        digests: dict[str, bytes] = {}
        for entry in (part.strip() for part in spec.split(",")):
            if not entry:
                continue
            name, sep, secret = entry.partition("=")
            name, secret = name.strip(), secret.strip()
            if not sep or not PRINCIPAL_PATTERN.match(name) or not secret:
                raise KeyConfigError(f"API_KEYS: {name or entry[:8]!r} is not name=sha256:<hex> or name=key")
            if name in digests:
                raise KeyConfigError(f"API_KEYS: {name!r} is listed twice")
            hashed = _HASHED.match(secret)
            digests[name] = bytes.fromhex(hashed.group(1)) if hashed else _digest(secret)
        return cls(digests)

    @property
    def required(self) -> bool:
        return bool(self.digests)

    def principal(self, key: str) -> str | None:
        """The principal whose key this is; every configured digest is compared, so timing tells nothing."""
        digest = _digest(key)
        found = None
        for name, expected in self.digests.items():
            if hmac.compare_digest(digest, expected):
                found = name
        return found


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


if __name__ == "__main__":
    sys.stdout.write(f"sha256:{_digest(sys.argv[1]).hex()}\n")
