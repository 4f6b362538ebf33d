"""Blob references inside workflows (ARCHITECTURE rule 4, the claim check).

Workflows and activities carry blob keys, never bytes and never the gateway's URLs. Where a state or event shows
a link to a blob (an image a user should see), it holds the reference `blob:<key>` in a field typed `BlobLink`;
the gateway serialises state and events with its `Linker` in the context (`LINKER`), which turns those fields,
and only those, into its own URLs (`api.blob_urls`), so no worker needs to know where the gateway is reachable.
A `blob:` string anywhere else (a topic, a message, free text a user typed) stays the text it is.
"""

import re
from typing import Annotated, Any, Protocol

from pydantic import PlainSerializer, SerializationInfo

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


LINKER = "blob_linker"
"""The serialisation context entry (`model_dump(context={LINKER: ...})`) that makes `BlobLink` fields URLs."""


class Linker(Protocol):
    """What the gateway passes in the serialisation context: a `BlobLink`'s value as its reader sees it."""

    def link(self, value: str) -> str: ...


def linked(value: str, info: SerializationInfo) -> str:
    """A `BlobLink` as serialised: through the context's `Linker` when there is one, else unchanged (in
    workflows, activities and Temporal payloads)."""
    context: Any = info.context
    linker: Linker | None = context.get(LINKER) if isinstance(context, dict) else None
    return linker.link(value) if linker is not None else value


BlobLink = Annotated[str, PlainSerializer(linked)]
"""A field that links to a blob a user should see (`blob:<key>`, or an image's URL elsewhere): the one kind of
field the gateway makes a URL."""


class ImageRef(CamelModel):
    """An image an activity starts from: a blob this project stored (`blob_key`), or a URL elsewhere (`url`)."""

    blob_key: str | None = None
    url: str | None = None

    def describe(self) -> str:
        """How the image shows in state and events: its `blob:` reference, or its URL."""
        return blob_ref(self.blob_key) if self.blob_key else self.url or ""
