"""Blob references inside workflows (ARCHITECTURE rule 4, the claim check).

Workflows and activities carry blob keys, never bytes and never the gateway's URLs. Where a state or event shows
a link to a blob (an image a user should see), it holds the reference `blob:<key>`; the gateway turns every
such reference into its own public URL when it serves state or events (`api.blob_urls`), so no worker needs to
know where the gateway is reachable.
"""

import re

from models.base import CamelModel

BLOB_SCHEME = "blob:"
KEY_PATTERN = r"[a-z]+/[0-9a-f]{64}\.[a-z0-9]+"
"""`<kind>/<sha256>.<ext>`, as `stores.blob_store` writes them."""

_REF = re.compile(rf"^{re.escape(BLOB_SCHEME)}({KEY_PATTERN})$")


def blob_ref(key: str) -> str:
    """The reference a state or event carries for the blob `key`."""
    return f"{BLOB_SCHEME}{key}"


def key_of(value: str) -> str | None:
    """The key inside a `blob:` reference, or None for anything else."""
    match = _REF.match(value)
    return match.group(1) if match else None


class ImageRef(CamelModel):
    """An image an activity starts from: a blob this project stored (`blob_key`), or a URL elsewhere (`url`)."""

    blob_key: str | None = None
    url: str | None = None

    def describe(self) -> str:
        """How the image shows in state and events: its `blob:` reference, or its URL."""
        return blob_ref(self.blob_key) if self.blob_key else self.url or ""
