"""A project's manuscript, downloaded (issue 28 item 6): `GET .../export.md` and `GET .../export.epub`, the chapters
in order under their titles, built by `stores.manuscript` in a thread from one read of the project."""

import asyncio
from collections.abc import Callable

from fastapi import APIRouter, Response

from api.bodies import StrictJsonRoute
from api.deps import Principal
from api.routes.writing import Projects, call_store
from models.writing.projects import Chapter, Project
from stores import manuscript

router = APIRouter(prefix="/v1/writing/projects", tags=["writing"], route_class=StrictJsonRoute)

_MARKDOWN = "text/markdown; charset=utf-8"
_EPUB = "application/epub+zip"


@router.get("/{project_id}/export.md", response_class=Response, responses={200: {"content": {_MARKDOWN: {}}}})
async def export_markdown(project_id: str, store: Projects, principal: Principal) -> Response:
    """The manuscript as Markdown: `# <project>`, then `## <chapter title>` and its text for each chapter."""
    return await _export(store, principal, project_id, "md", _MARKDOWN, manuscript.markdown)


@router.get("/{project_id}/export.epub", response_class=Response, responses={200: {"content": {_EPUB: {}}}})
async def export_epub(project_id: str, store: Projects, principal: Principal) -> Response:
    """The manuscript as an EPUB 3 book: one chapter per file in order, with a table of contents."""
    return await _export(store, principal, project_id, "epub", _EPUB, manuscript.epub)


async def _export(
    store: Projects,
    principal: str,
    project_id: str,
    extension: str,
    media_type: str,
    build: Callable[[Project, list[Chapter]], str | bytes],
) -> Response:
    project, chapters = await call_store(store, store.manuscript, principal, project_id)
    body = await asyncio.to_thread(build, project, chapters)
    disposition = f'attachment; filename="{project_id}.{extension}"'
    return Response(body, media_type=media_type, headers={"Content-Disposition": disposition})
