"""Where the gateway turns blob links into its own URLs, and its own URLs back into blob keys, for one principal.

Workflows carry `blob:<key>` references (`models.blobs`) in fields typed `BlobLink`; everything the gateway
serves (run state, events, the content post) is serialised through `BlobLinks.present`/`present_event`, which
make those fields, and only those, `<public base URL>/v1/blobs/<key>`. A `blob:` string a user typed (a topic,
a message) is never a link. A link becomes a URL only for a principal that owns its blob (the blob store's
ownership record, `BlobStore.owns`): a key alone grants nothing.

With API keys configured, each URL is signed for the principal it is shown to and expires:
`?owner=<principal>&exp=<unix seconds>&sig=<HMAC>`. A blob is served only under a valid, unexpired signature for a
principal that owns it, so an image reaches only its owner, and the URL works where no header can be sent (an
`<img src>`). URLs are minted on every read and live `BLOB_URL_TTL_SECONDS`: the expiry is rounded down to a
quarter of that lifetime, so reads close together give the same URL (the browser's cache holds) and a URL works
for between three quarters of the lifetime and all of it. The same bytes from two principals are one blob with
two owners and two URLs. A URL the gateway issued that comes back in a request (a mask's `imageUrl`, a reference
image) becomes its key again (`own_key`), only when it was signed for the caller and the caller owns the blob,
so an image this project stored is read from the store, never fetched; the caller proves who it is with its key
there, so an expired URL of its own still counts.

The signing secret is `BLOB_URL_SECRET`, else a random one created once in `DATA_DIR` (every process of one
stack reads the same file; set the setting when gateways do not share a data folder). Without API keys the
gateway has one principal, `local`, and its URLs carry no signature (and no expiry).
"""

import hashlib
import hmac
import os
import secrets
import time
from contextlib import suppress
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from pydantic import BaseModel, ValidationError

from api.principals import LOCAL_PRINCIPAL
from models.blobs import LINKER, key_of
from models.events import EventCatalog, RunEvent
from models.settings import Settings
from stores.blob_store import BlobStore, is_valid_key

BLOB_ROUTE = "/v1/blobs/"
SECRET_FILE = "blob-url-secret"
_MAX_EXPIRY_DIGITS = 12


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


def signature(secret: bytes, owner: str, key: str, expires: int) -> str:
    """The signature of `key`'s URL for `owner`, valid until `expires` (unix seconds)."""
    return hmac.new(secret, f"{owner}\n{key}\n{expires}".encode(), hashlib.sha256).hexdigest()[:32]


def expiry(now: float, ttl_seconds: int) -> int:
    """When a URL minted at `now` expires: `ttl_seconds` on, rounded down to a quarter of it."""
    step = max(ttl_seconds // 4, 1)
    return int((now + ttl_seconds) // step * step)


def url_reader(
    secret: bytes | None, key: str, owner: str | None, expires: str | None, sig: str | None, now: float
) -> str | None:
    """The principal a request for `key` carrying `owner`, `expires` and `sig` reads it for (the one principal,
    without a secret), or None when the signature is missing, wrong or expired. Ownership is checked apart."""
    if secret is None:
        return LOCAL_PRINCIPAL
    if owner is None or sig is None or not _signed(secret, key, owner, expires, sig):
        return None
    return owner if int(expires or 0) > now else None


def _signed(secret: bytes, key: str, owner: str, expires: str | None, sig: str) -> bool:
    if expires is None or not expires.isdigit() or len(expires) > _MAX_EXPIRY_DIGITS:
        return False
    return hmac.compare_digest(signature(secret, owner, key, int(expires)), sig)


@dataclass(frozen=True)
class BlobLinks:
    """Blob URLs as one principal sees them (picklable: the intake process gets one per request). `events`: the
    catalog of the run family whose events are presented (`for_events`); without one, events carry no URLs."""

    base_url: str
    secret: bytes | None
    principal: str
    blobs: BlobStore
    ttl_seconds: int
    events: EventCatalog | None = None

    def url(self, key: str) -> str:
        """The URL the gateway serves `key` under, for this principal, minted now."""
        url = f"{self.base_url.rstrip('/')}{BLOB_ROUTE}{key}"
        if self.secret is None:
            return url
        expires = expiry(time.time(), self.ttl_seconds)
        sig = signature(self.secret, self.principal, key, expires)
        return f"{url}?owner={quote(self.principal)}&exp={expires}&sig={sig}"

    def link(self, value: str) -> str:
        """A `BlobLink` as this principal sees it: the URL of a blob it owns; anything else unchanged. Blocking file
        work (the ownership record)."""
        key = key_of(value)
        if key is None or not self.blobs.owns(self.principal, key):
            return value
        return self.url(key)

    def present(self, model: BaseModel, *, exclude_none: bool = False) -> Any:
        """`model` as JSON (camelCase) with its `BlobLink` fields made URLs. Blocking: call it in a thread."""
        return model.model_dump(mode="json", by_alias=True, exclude_none=exclude_none, context={LINKER: self})

    def present_event(self, event: RunEvent) -> Any:
        """An event as JSON, its payload read as its type's model so its `BlobLink` fields become URLs (a payload
        its model does not read is shown as it is, without URLs; as the event log, without None fields). Blocking:
        call it in a thread."""
        envelope = event.model_dump(mode="json", by_alias=True)
        model = self.events.payloads.get(event.type) if self.events is not None else None
        if model is not None:
            with suppress(ValidationError):
                envelope["data"] = self.present(model.model_validate(event.data), exclude_none=True)
        return envelope

    def for_events(self, catalog: EventCatalog | None) -> "BlobLinks":
        """These links, presenting the events of a family with this catalog."""
        return replace(self, events=catalog)

    def own_key(self, url: str) -> str | None:
        """The blob key of a URL this gateway issued to this principal (any host: it may be reached under several
        names; expired or not) for a blob it owns; None for any other URL. Blocking file work."""
        key = blob_route_key(url)
        if key is None:
            return None
        if self.secret is not None:
            query = parse_qs(urlsplit(url).query)
            owner, expires, sig = (query.get(name, [None])[0] for name in ("owner", "exp", "sig"))
            if owner != self.principal or sig is None or not _signed(self.secret, key, owner, expires, sig):
                return None
        return key if self.blobs.owns(self.principal, key) else None


def blob_route_key(url: str) -> str | None:
    """The key in a URL of the blob route (signed or not, any host), else None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.path.startswith(BLOB_ROUTE):
        return None
    key = parts.path[len(BLOB_ROUTE) :]
    return key if is_valid_key(key) else None
