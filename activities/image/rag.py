"""The RAG node (seed 000 §3.2, 004 §4.2): look the intent's style up in the style library, enhance the prompt.

The vector search itself is synchronous (embedded LanceDB), so it runs in a thread; the store caches results.
"""

import asyncio

from models.image import nodes
from models.image.nodes import RagRequest
from models.image.state import EnhancedPrompt
from stores.style_store import StyleStore


class StyleRetriever:
    """The RAG activity over a style store."""

    def __init__(self, store: StyleStore) -> None:
        self._store = store

    @nodes.RAG.defn
    async def retrieve_styles(self, request: RagRequest) -> EnhancedPrompt:
        query = (request.style or "").strip()
        if not query:
            return EnhancedPrompt(original=request.original, final=request.original)
        results = await asyncio.to_thread(
            self._store.search, query, limit=request.limit, min_similarity=request.min_similarity
        )
        fragments = ", ".join(r.prompt for r in results)
        final = f"{request.original}, {fragments}" if fragments else request.original
        return EnhancedPrompt(original=request.original, retrieved=results, final=final)
