"""Where the gateway turns blob references into its own URLs, and its own URLs back into blob keys, for one
principal.

Workflows carry `blob:<key>` references (`models.blobs`); everything the gateway serves (run state, events,
uploads) goes through `BlobLinks.present`, which replaces each such reference with
`<public base URL>/v1/blobs/<key>`. With API keys configured, each URL is signed for the principal it is shown
to (`?owner=<principal>&sig=<HMAC>`): a blob is served only under a valid signature, so an image reaches only
the principal whose run produced it or who uploaded it, and the URL works where no header can be sent (an
`<img src>`). Keys are content hashes, so the same bytes from two principals are one blob with two URLs. A URL
the gateway issued that comes back in a request (a mask's `imageUrl`) becomes its key again (`own_key`), only
with the calling principal's signature, so an image this project stored is read from the store, never fetched.

The signing secret is `BLOB_URL_SECRET`, else a random one created once in `DATA_DIR` (every process of one
stack reads the same file; set the setting when gateways do not share a data folder). Without API keys the
gateway has one principal and its URLs carry no signature.
"""

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from models.blobs import key_of
from models.settings import Settings
from stores.blob_store import LocalBlobStore

BLOB_ROUTE = "/v1/blobs/"
SECRET_FILE = "blob-url-secret"


def signing_secret(settings: Settings) -> bytes | None:
    """The secret blob URLs are signed with; None when the gateway has no API keys (nothing to tell apart).
    Blocking file work: call it in a thread."""
    if not settings.api_keys.get_secret_value().strip():
        return None
    configured = settings.blob_url_secret.get_secret_value()
    if configured:
        return configured.encode()
    path = settings.data_dir / SECRET_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    try:  # created exclusively: two processes starting at once end up with the same secret
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes()
    with os.fdopen(fd, "wb") as file:
        file.write(secrets.token_hex(32).encode())
    return path.read_bytes()


def signature(secret: bytes, owner: str, key: str) -> str:
    """The signature of `key`'s URL for `owner`."""
    return hmac.new(secret, f"{owner}\n{key}".encode(), hashlib.sha256).hexdigest()[:32]


def may_read(secret: bytes | None, key: str, owner: str | None, sig: str | None) -> bool:
    """Whether a request for `key` carrying `owner` and `sig` may read it (always, without a secret)."""
    if secret is None:
        return True
    if owner is None or sig is None:
        return False
    return hmac.compare_digest(signature(secret, owner, key), sig)


@dataclass(frozen=True)
class BlobLinks:
    """Blob URLs as one principal sees them (picklable: the intake process gets one per request)."""

    base_url: str
    secret: bytes | None
    principal: str

    def url(self, key: str) -> str:
        """The URL the gateway serves `key` under, for this principal."""
        url = f"{self.base_url.rstrip('/')}{BLOB_ROUTE}{key}"
        if self.secret is None:
            return url
        return f"{url}?owner={quote(self.principal)}&sig={signature(self.secret, self.principal, key)}"

    def present(self, value: Any) -> Any:
        """`value` (JSON-like: dicts, lists, strings, ...) with every `blob:` reference made a URL."""
        if isinstance(value, str):
            key = key_of(value)
            return self.url(key) if key is not None else value
        if isinstance(value, dict):
            return {name: self.present(item) for name, item in value.items()}
        if isinstance(value, list):
            return [self.present(item) for item in value]
        return value

    def own_key(self, url: str) -> str | None:
        """The blob key of a URL this gateway issued to this principal (any host: it may be reached under several
        names); None for any other URL."""
        key = blob_route_key(url)
        if key is None:
            return None
        query = parse_qs(urlsplit(url).query)
        owner, sig = query.get("owner", [None])[0], query.get("sig", [None])[0]
        if owner != self.principal and self.secret is not None:
            return None
        return key if may_read(self.secret, key, owner, sig) else None


def blob_route_key(url: str) -> str | None:
    """The key in a URL of the blob route (signed or not, any host), else None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.path.startswith(BLOB_ROUTE):
        return None
    key = parts.path[len(BLOB_ROUTE) :]
    return key if LocalBlobStore.is_valid_key(key) else None
