"""The preprocessing tasks (seed 002 Req 2): one activity each, started together by the workflow, each returning
its part of the `PreprocessingContext` with its own timing (Req 9.2).

- `rag`: hybrid retrieval (full text plus vectors) over the project (HybridSearchService, Req 2.2);
- `character_states`: each character's description, status and last appearance (StateRetrievalService, Req 2.3);
- `style_samples`: the writer's saved samples closest to the request, else excerpts of their latest chapters
  (StyleRetrieveTool, Req 2.4);
- `archetypes`: the archetype library's best matches; `plot_loops`: every plot loop and whether it is paid off;
- `preflight`: cheap checks of the chapters before a consistency check (Req 6.2).
"""

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from time import perf_counter

import numpy as np

from activities.writing.archetypes import match_archetypes
from activities.writing.preflight import preflight
from activities.writing.project_access import ProjectReader
from activities.writing.story_facts import character_states
from models.writing.context import (
    MAX_PASSAGE_CHARS,
    PlotLoopState,
    PreprocessingContext,
    PreprocessingTask,
    PreprocessPart,
    PreprocessRequest,
    StyleExcerpt,
)
from models.writing.language import written_in_english
from models.writing.nodes import PREPROCESSING
from stores.embedder import HashingEmbedder

STYLE_SAMPLES = 2
ARCHETYPES = 3
CHAPTER_EXCERPT_CHARS = 400

Task = Callable[[PreprocessRequest], Awaitable[PreprocessingContext]]


class Preprocessor:
    """The preprocessing activities, over the writer's project."""

    def __init__(self, reader: ProjectReader, embedder: HashingEmbedder | None = None) -> None:
        self._reader = reader
        self._embedder = embedder or HashingEmbedder()

    @PREPROCESSING[PreprocessingTask.RAG].defn
    async def rag(self, request: PreprocessRequest) -> PreprocessPart:
        return await _timed(PreprocessingTask.RAG, self._rag, request)

    @PREPROCESSING[PreprocessingTask.CHARACTER_STATES].defn
    async def character_states(self, request: PreprocessRequest) -> PreprocessPart:
        return await _timed(PreprocessingTask.CHARACTER_STATES, self._character_states, request)

    @PREPROCESSING[PreprocessingTask.STYLE_SAMPLES].defn
    async def style_samples(self, request: PreprocessRequest) -> PreprocessPart:
        return await _timed(PreprocessingTask.STYLE_SAMPLES, self._style_samples, request)

    @PREPROCESSING[PreprocessingTask.ARCHETYPES].defn
    async def archetypes(self, request: PreprocessRequest) -> PreprocessPart:
        return await _timed(PreprocessingTask.ARCHETYPES, self._archetypes, request)

    @PREPROCESSING[PreprocessingTask.PLOT_LOOPS].defn
    async def plot_loops(self, request: PreprocessRequest) -> PreprocessPart:
        return await _timed(PreprocessingTask.PLOT_LOOPS, self._plot_loops, request)

    @PREPROCESSING[PreprocessingTask.PREFLIGHT].defn
    async def preflight(self, request: PreprocessRequest) -> PreprocessPart:
        return await _timed(PreprocessingTask.PREFLIGHT, self._preflight, request)

    async def _rag(self, request: PreprocessRequest) -> PreprocessingContext:
        passages = await self._reader.passages(request.owner, request.project_id, request.text, request.entity_names)
        return PreprocessingContext(passages=passages)

    async def _character_states(self, request: PreprocessRequest) -> PreprocessingContext:
        characters, chapters = await asyncio.gather(
            self._reader.characters(request.owner, request.project_id),
            self._reader.chapters(request.owner, request.project_id),
        )
        return PreprocessingContext(characters=await asyncio.to_thread(character_states, characters, chapters))

    async def _style_samples(self, request: PreprocessRequest) -> PreprocessingContext:
        saved = await self._reader.style_samples(request.owner, request.project_id)
        if saved:
            texts = [f"{sample.title}\n{sample.text}" for sample in saved]
            order = await asyncio.to_thread(self._closest, request.text, texts)
            chosen = [saved[i] for i in order[:STYLE_SAMPLES]]
            samples = [StyleExcerpt(title=s.title, text=s.text[:MAX_PASSAGE_CHARS], source="sample") for s in chosen]
            return PreprocessingContext(style_samples=samples)
        chapters = await self._reader.chapters(request.owner, request.project_id)
        latest = [chapter for chapter in chapters if chapter.content.strip()][-STYLE_SAMPLES:]
        samples = [
            StyleExcerpt(title=f"第{c.position}章 {c.title}", text=c.content[:CHAPTER_EXCERPT_CHARS], source="chapter")
            for c in latest
        ]
        return PreprocessingContext(style_samples=samples)

    async def _archetypes(self, request: PreprocessRequest) -> PreprocessingContext:
        return PreprocessingContext(archetypes=await asyncio.to_thread(match_archetypes, request.text, ARCHETYPES))

    async def _plot_loops(self, request: PreprocessRequest) -> PreprocessingContext:
        loops = await self._reader.plot_loops(request.owner, request.project_id)
        states = [
            PlotLoopState(
                plot_loop_id=loop.plot_loop_id,
                title=loop.title,
                description=loop.description,
                status=loop.status,
                planted_in_chapter=loop.planted_in_chapter,
                resolved_in_chapter=loop.resolved_in_chapter,
            )
            for loop in loops
        ]
        return PreprocessingContext(plot_loops=states)

    async def _preflight(self, request: PreprocessRequest) -> PreprocessingContext:
        chapters, characters = await asyncio.gather(
            self._reader.chapters(request.owner, request.project_id),
            self._reader.characters(request.owner, request.project_id),
        )
        english = written_in_english(request.text)
        return PreprocessingContext(preflight=await asyncio.to_thread(preflight, chapters, characters, english))

    def _closest(self, query: str, texts: list[str]) -> list[int]:
        """Indexes of `texts`, closest to `query` first (cosine of the offline embedder)."""
        vectors = self._embedder.embed([query, *texts])
        scores = vectors[1:] @ vectors[0]
        return [int(i) for i in np.argsort(-scores, kind="stable")]


async def _timed(task: PreprocessingTask, run: Task, request: PreprocessRequest) -> PreprocessPart:
    started_at = datetime.now(UTC)
    started = perf_counter()
    context = await run(request)
    elapsed_ms = (perf_counter() - started) * 1000
    return PreprocessPart(
        task=task, context=context, started_at=started_at, finished_at=datetime.now(UTC), elapsed_ms=elapsed_ms
    )
