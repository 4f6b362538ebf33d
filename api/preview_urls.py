"""The preview's capability URLs: `/v1/apps/previews/<token>/<path>` serves one build of one run's app, with no API
key (an iframe sends none), to whoever holds the URL while it has not expired.

The token is the base64url JSON of `[owner, run id, build manifest key, expiry]` and its signature, made and
checked as the blob URLs' are (`api.blob_urls`: the same secret, `BLOB_URL_TTL_SECONDS` lifetime rounded down to
a quarter of it, so a page polling the preview endpoint gets the same URL), over a message that starts `preview`
(no blob URL's signature is a preview's). A token whose signature does not match (forged, or another run's or
build's with its parts changed) or whose expiry has passed is refused. Without API keys the gateway has one
principal, `local`, and the token carries no signature and no expiry, as its blob URLs do.
"""

import base64
import binascii
import hmac
import json
import time
from dataclasses import dataclass

from api.blob_urls import BlobLinks, expiry, signature
from api.principals import LOCAL_PRINCIPAL
from stores.blob_store import is_valid_key

PREVIEW_ROUTE = "/v1/apps/previews/"
MAX_TOKEN_CHARS = 600


@dataclass(frozen=True)
class PreviewGrant:
    """What a valid token grants: the files of one build (`manifest_key`) of `owner`'s run `run_id`."""

    owner: str
    run_id: str
    manifest_key: str
    expires: int | None


class PreviewTokenError(ValueError):
    """A token that grants nothing; `expired` tells an old one from a forged one."""

    def __init__(self, message: str, *, expired: bool = False) -> None:
        super().__init__(message)
        self.expired = expired


def preview_url(links: BlobLinks, run_id: str, manifest_key: str) -> str:
    """The URL of the build's `index.html` for `links`' principal, minted now."""
    expires = None if links.secret is None else expiry(time.time(), links.ttl_seconds)
    token = _token(links.secret, links.principal, run_id, manifest_key, expires)
    return f"{links.base_url.rstrip('/')}{PREVIEW_ROUTE}{token}/index.html"


def read_token(secret: bytes | None, token: str, now: float) -> PreviewGrant:
    """The grant of `token`; raises `PreviewTokenError` when it grants nothing."""
    body, _, sig = token.partition(".")
    try:
        if len(token) > MAX_TOKEN_CHARS:
            raise ValueError("too long")
        owner, run_id, manifest_key, expires = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        if not all(isinstance(part, str) for part in (owner, run_id, manifest_key)):
            raise ValueError("not a preview token")
        if not (expires is None or (isinstance(expires, int) and not isinstance(expires, bool))):
            raise ValueError("not a preview token")
    except (ValueError, TypeError, binascii.Error) as err:
        raise PreviewTokenError("not a preview URL") from err
    if not is_valid_key(manifest_key):
        raise PreviewTokenError("not a preview URL")
    if secret is None:
        if owner != LOCAL_PRINCIPAL:
            raise PreviewTokenError("not a preview URL of this gateway")
        return PreviewGrant(owner, run_id, manifest_key, None)
    if expires is None or not hmac.compare_digest(_signature(secret, owner, run_id, manifest_key, expires), sig):
        raise PreviewTokenError("the preview URL's signature does not match")
    if expires <= now:
        raise PreviewTokenError("the preview URL has expired: ask the preview endpoint for a new one", expired=True)
    return PreviewGrant(owner, run_id, manifest_key, expires)


def _token(secret: bytes | None, owner: str, run_id: str, manifest_key: str, expires: int | None) -> str:
    payload = json.dumps([owner, run_id, manifest_key, expires], separators=(",", ":")).encode()
    body = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    sig = "" if secret is None or expires is None else _signature(secret, owner, run_id, manifest_key, expires)
    return f"{body}.{sig}"


def _signature(secret: bytes, owner: str, run_id: str, manifest_key: str, expires: int) -> str:
    return signature(secret, owner, f"preview\n{run_id}\n{manifest_key}", expires)
