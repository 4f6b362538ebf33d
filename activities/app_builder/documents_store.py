"""The four Session_Documents as one JSON blob: stored once by the planner, read by every execution agent, so no
task request carries them (ARCHITECTURE rule 4)."""

from pydantic import TypeAdapter

from models.app_builder.documents import SessionDocument
from models.blobs import blob_ref, key_of
from stores.blob_store import BlobStore

KIND = "appdocs"
_DOCUMENTS: TypeAdapter[list[SessionDocument]] = TypeAdapter(list[SessionDocument])


async def store_documents(blobs: BlobStore, documents: list[SessionDocument]) -> str:
    """The documents' `blob:` reference."""
    return blob_ref(await blobs.aput(_DOCUMENTS.dump_json(documents, by_alias=True), kind=KIND, ext="json"))


def load_documents(blobs: BlobStore, ref: str) -> list[SessionDocument]:
    """The documents behind `ref`. Blocking: call it in a thread."""
    key = key_of(ref)
    if key is None:
        raise ValueError(f"not a blob reference: {ref[:80]!r}")
    return _DOCUMENTS.validate_json(blobs.get(key))
