"""The writing family's projects (seed 002: the material every answer is grounded in): a writer's projects, their
chapters and characters, each visible only to the principal that created it (anyone else gets the 404 of an item
that does not exist). Stored by `stores.writing_projects`, which the worker's agents read too."""

from collections.abc import Callable
from typing import Annotated, ParamSpec, TypeVar

from fastapi import APIRouter, Depends, Request, Response

from api.deps import Principal
from api.errors import ApiError
from models.errors import ErrorCode
from models.writing.projects import Chapter, ChapterIn, Character, CharacterIn, Project, ProjectIn
from stores.writing_projects import NotFoundError, ProjectStore

P = ParamSpec("P")
T = TypeVar("T")

router = APIRouter(prefix="/v1/writing/projects", tags=["writing"])

_NOT_FOUND = {
    "project": (ErrorCode.PROJECT_NOT_FOUND, "没有这个项目"),
    "chapter": (ErrorCode.CHAPTER_NOT_FOUND, "没有这个章节"),
    "character": (ErrorCode.CHARACTER_NOT_FOUND, "没有这个角色"),
}


def project_store(request: Request) -> ProjectStore:
    store: ProjectStore = request.app.state.projects
    return store


Projects = Annotated[ProjectStore, Depends(project_store)]


async def _call(store: ProjectStore, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`method` of the store in a thread; an item that is not found (or not the caller's) is a 404."""
    try:
        return await store.run(method, *args, **kwargs)
    except NotFoundError as err:
        code, message = _NOT_FOUND[err.kind]
        raise ApiError(404, code, f"{message}：{err.item_id}") from err


@router.post("", response_model=Project, status_code=201)
async def create_project(body: ProjectIn, store: Projects, principal: Principal) -> Project:
    """A new project: `{name, genre?}`; answers with its `projectId`."""
    return await _call(store, store.create_project, principal, body)


@router.get("", response_model=list[Project])
async def list_projects(store: Projects, principal: Principal) -> list[Project]:
    """The caller's projects, oldest first."""
    return await _call(store, store.projects, principal)


@router.get("/{project_id}", response_model=Project)
async def get_project(project_id: str, store: Projects, principal: Principal) -> Project:
    return await _call(store, store.project, principal, project_id)


@router.post("/{project_id}/chapters", response_model=Chapter, status_code=201)
async def add_chapter(project_id: str, body: ChapterIn, store: Projects, principal: Principal) -> Chapter:
    """A chapter `{title, content}`, numbered after the project's last one."""
    return await _call(store, store.add_chapter, principal, project_id, body)


@router.get("/{project_id}/chapters", response_model=list[Chapter])
async def list_chapters(project_id: str, store: Projects, principal: Principal) -> list[Chapter]:
    return await _call(store, store.chapters, principal, project_id)


@router.get("/{project_id}/chapters/{chapter_id}", response_model=Chapter)
async def get_chapter(project_id: str, chapter_id: str, store: Projects, principal: Principal) -> Chapter:
    return await _call(store, store.chapter, principal, project_id, chapter_id)


@router.put("/{project_id}/chapters/{chapter_id}", response_model=Chapter)
async def update_chapter(
    project_id: str, chapter_id: str, body: ChapterIn, store: Projects, principal: Principal
) -> Chapter:
    return await _call(store, store.update_chapter, principal, project_id, chapter_id, body)


@router.delete("/{project_id}/chapters/{chapter_id}", status_code=204, response_class=Response)
async def delete_chapter(project_id: str, chapter_id: str, store: Projects, principal: Principal) -> Response:
    await _call(store, store.delete_chapter, principal, project_id, chapter_id)
    return Response(status_code=204)


@router.post("/{project_id}/characters", response_model=Character, status_code=201)
async def add_character(project_id: str, body: CharacterIn, store: Projects, principal: Principal) -> Character:
    """A character `{name, description}`."""
    return await _call(store, store.add_character, principal, project_id, body)


@router.get("/{project_id}/characters", response_model=list[Character])
async def list_characters(project_id: str, store: Projects, principal: Principal) -> list[Character]:
    return await _call(store, store.characters, principal, project_id)


@router.get("/{project_id}/characters/{character_id}", response_model=Character)
async def get_character(project_id: str, character_id: str, store: Projects, principal: Principal) -> Character:
    return await _call(store, store.character, principal, project_id, character_id)


@router.put("/{project_id}/characters/{character_id}", response_model=Character)
async def update_character(
    project_id: str, character_id: str, body: CharacterIn, store: Projects, principal: Principal
) -> Character:
    return await _call(store, store.update_character, principal, project_id, character_id, body)


@router.delete("/{project_id}/characters/{character_id}", status_code=204, response_class=Response)
async def delete_character(project_id: str, character_id: str, store: Projects, principal: Principal) -> Response:
    await _call(store, store.delete_character, principal, project_id, character_id)
    return Response(status_code=204)
