"""Evidence by reference (ARCHITECTURE rule 4): the user's notes and the research agent's evidence items live in
the blob store as JSON; runs carry their `blob:` references. Written by rename like every blob, so a retried
activity never leaves half a file."""

import json

from pydantic import TypeAdapter

from models.blobs import blob_ref, key_of
from models.content.artifacts import EvidenceItem, EvidencePack, ResearchFindings
from stores.blob_store import BlobStore

KIND = "evidence"
HIGHLIGHTS = 5
_ITEMS = TypeAdapter(list[EvidenceItem])


def store_notes(blobs: BlobStore, notes: list[str]) -> str:
    """The user's notes as one blob; its `blob:` reference. Blocking file work: call it in a thread."""
    data = json.dumps({"notes": notes}, ensure_ascii=False).encode()
    return blob_ref(blobs.put(data, kind=KIND, ext="json"))


async def load_notes(blobs: BlobStore, ref: str | None) -> list[str]:
    """The notes behind `ref` (none without one)."""
    if ref is None:
        return []
    document = json.loads(await blobs.aget(_key(ref)))
    notes: list[str] = document["notes"]
    return notes


async def store_findings(blobs: BlobStore, findings: ResearchFindings) -> EvidencePack:
    """Research's items as one blob, and the small pack the state keeps."""
    key = await blobs.aput(_ITEMS.dump_json(findings.items, by_alias=True), kind=KIND, ext="json")
    return EvidencePack(
        ref=blob_ref(key),
        count=len(findings.items),
        highlights=[item.claim[:120] for item in findings.items[:HIGHLIGHTS]],
        from_notes=sum(item.source.startswith("note-") for item in findings.items),
    )


async def load_items(blobs: BlobStore, pack: EvidencePack | None) -> list[EvidenceItem]:
    """The evidence items behind a pack (none without one)."""
    if pack is None:
        return []
    return _ITEMS.validate_json(await blobs.aget(_key(pack.ref)))


def _key(ref: str) -> str:
    key = key_of(ref)
    if key is None:
        raise ValueError(f"not a blob reference: {ref[:80]!r}")
    return key
