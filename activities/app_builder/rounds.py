"""A follow-up round's change counts, one activity (`app_builder.round_changes`): its base's final workspace against
its own, by manifest (`stores.app_diff.round_changes`), so the workflow never reads a file to count them."""

import asyncio

from models.app_builder.nodes import ROUND_CHANGES
from models.app_builder.rounds import ChangesRequest, RoundChanges
from stores.app_diff import round_changes
from stores.blob_store import BlobStore


class RoundCounter:
    """The `app_builder.round_changes` activity over the blob store."""

    def __init__(self, blobs: BlobStore) -> None:
        self._blobs = blobs

    @ROUND_CHANGES.defn
    async def round_changes(self, request: ChangesRequest) -> RoundChanges:
        return await asyncio.to_thread(round_changes, self._blobs, request.base, request.workspace)
