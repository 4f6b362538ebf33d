"""How the writing activities read a writer's project: the document store and the retrieval index, in a thread
(SQLite and LanceDB block), always as the run's owner; a project that is gone (or not the owner's) is a
non-retryable PROJECT_NOT_FOUND."""

import asyncio
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

from activities.common.failures import permanent
from models.writing.context import Passage
from models.writing.errors import WritingErrorCode
from models.writing.projects import Chapter, Character, PlotLoop, StyleSample
from stores.writing_passages import ProjectSearch
from stores.writing_projects import NotFoundError, ProjectStore

P = ParamSpec("P")
T = TypeVar("T")

PASSAGES = 6


class ProjectReader:
    """Reads one owner's project at a time; keeps nothing between calls."""

    def __init__(self, projects: ProjectStore, index: ProjectSearch) -> None:
        self.projects = projects
        self._index = index

    async def chapters(self, owner: str, project_id: str) -> list[Chapter]:
        return await self.read(self.projects.chapters, owner, project_id)

    async def characters(self, owner: str, project_id: str) -> list[Character]:
        return await self.read(self.projects.characters, owner, project_id)

    async def style_samples(self, owner: str, project_id: str) -> list[StyleSample]:
        return await self.read(self.projects.style_samples, owner, project_id)

    async def plot_loops(self, owner: str, project_id: str) -> list[PlotLoop]:
        return await self.read(self.projects.plot_loops, owner, project_id)

    async def passages(self, owner: str, project_id: str, query: str, favour: Sequence[str] = ()) -> list[Passage]:
        """Hybrid retrieval over the project, re-indexed first when it changed since it was last indexed."""
        return await self.read(self._search, owner, project_id, query, favour)

    def _search(self, owner: str, project_id: str, query: str, favour: Sequence[str]) -> list[Passage]:
        revision = self.projects.revision(owner, project_id)
        documents = lambda: self.projects.documents(owner, project_id)  # noqa: E731 - loaded only when stale
        return self._index.search(project_id, revision, documents, query, limit=PASSAGES, favour=favour)

    async def read(self, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`method` in a thread; a project that is not found is a failure no retry can fix."""
        try:
            return await asyncio.to_thread(method, *args, **kwargs)
        except NotFoundError as err:
            raise permanent(WritingErrorCode.PROJECT_NOT_FOUND, f"项目不存在或不属于该用户：{err.item_id}") from err
