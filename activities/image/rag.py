"""The RAG node (seed 000 §3.2, 004 §4.2): look the intent's style up in the style library, enhance the prompt.

The vector search itself is synchronous (embedded LanceDB), so it runs in a thread; the store caches results.
"""

import asyncio

from temporalio import activity

from models.agent import EnhancedPrompt
from models.nodes import ActivityName, RagRequest
from stores.style_store import StyleStore


class StyleRetriever:
    def __init__(self, store: StyleStore) -> None:
        self._store = store

    @activity.defn(name=ActivityName.RAG)
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
