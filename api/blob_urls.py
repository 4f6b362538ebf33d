"""Where the gateway turns blob references into its own URLs, and its own URLs back into blob keys.

Workflows carry `blob:<key>` references (`models.blobs`); everything the gateway serves (run state, events)
goes through `present`, which replaces each such reference with `<public base URL>/v1/blobs/<key>`. A URL
the gateway issued that comes back in a request (a mask's `imageUrl`) becomes its key again (`own_blob_key`),
so an image this project stored is read from the store, never fetched over HTTP.
"""

from typing import Any
from urllib.parse import urlsplit

from models.blobs import key_of
from stores.blob_store import LocalBlobStore

BLOB_ROUTE = "/v1/blobs/"


def blob_url(base_url: str, key: str) -> str:
    """The URL the gateway serves a blob under."""
    return f"{base_url.rstrip('/')}{BLOB_ROUTE}{key}"


def present(value: Any, base_url: str) -> Any:
    """`value` (JSON-like: dicts, lists, strings, ...) with every `blob:` reference made a URL."""
    if isinstance(value, str):
        key = key_of(value)
        return blob_url(base_url, key) if key is not None else value
    if isinstance(value, dict):
        return {name: present(item, base_url) for name, item in value.items()}
    if isinstance(value, list):
        return [present(item, base_url) for item in value]
    return value


def own_blob_key(url: str) -> str | None:
    """The blob key of a URL this gateway issued (any host: it may be reached under several names), else None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.path.startswith(BLOB_ROUTE):
        return None
    key = parts.path[len(BLOB_ROUTE) :]
    return key if LocalBlobStore.is_valid_key(key) else None
