"""The writing family's projects (seed 002: the material every answer is grounded in): a writer's projects, their
chapters, characters, plot loops, style samples, world notes and relationships between characters, each visible
only to the principal that created it (anyone else gets the 404 of an item that does not exist). Stored by
`stores.writing_projects`, which the worker's agents and retrieval index read too. Each item answers with its
`ETag` (`"<version>"`; a project's is its revision); a PUT or DELETE whose `If-Match` names an older one is refused
with 412 `ITEM_CHANGED` and the current ETag, so no edit is lost silently. Without `If-Match` a write just applies."""

from collections.abc import Callable
from typing import Annotated, Any, ParamSpec, Protocol, TypeVar

from fastapi import APIRouter, Depends, Header, Request, Response

from api.bodies import StrictJsonRoute
from api.deps import Principal
from api.errors import ApiError
from models.writing.errors import WritingErrorCode
from models.writing.projects import (
    Chapter,
    ChapterIn,
    Character,
    CharacterIn,
    PlotLoop,
    PlotLoopIn,
    Project,
    ProjectIn,
    Relationship,
    RelationshipIn,
    StyleSample,
    StyleSampleIn,
    WorldNote,
    WorldNoteIn,
)
from stores.chapter_versions import VersionNotFoundError
from stores.project_removal import ProjectRemoval
from stores.writing_projects import (
    ChapterOrderError,
    LimitReachedError,
    NotFoundError,
    PairTakenError,
    ProjectStore,
    StaleVersionError,
    chapter_list_tag,
)

P = ParamSpec("P")
T = TypeVar("T")

router = APIRouter(prefix="/v1/writing/projects", tags=["writing"], route_class=StrictJsonRoute)

_NOT_FOUND = {
    "project": (WritingErrorCode.PROJECT_NOT_FOUND, "没有这个项目"),
    "chapter": (WritingErrorCode.CHAPTER_NOT_FOUND, "没有这个章节"),
    "character": (WritingErrorCode.CHARACTER_NOT_FOUND, "没有这个角色"),
    "plot_loop": (WritingErrorCode.PLOT_LOOP_NOT_FOUND, "没有这个伏笔"),
    "style_sample": (WritingErrorCode.STYLE_SAMPLE_NOT_FOUND, "没有这个风格样本"),
    "world_note": (WritingErrorCode.WORLD_NOTE_NOT_FOUND, "没有这条设定"),
    "relationship": (WritingErrorCode.RELATIONSHIP_NOT_FOUND, "没有这条关系"),
}


def project_store(request: Request) -> ProjectStore:
    store: ProjectStore = request.app.state.projects
    return store


Projects = Annotated[ProjectStore, Depends(project_store)]


def if_match(
    value: Annotated[str | None, Header(alias="If-Match", description='the ETag the caller read, e.g. `"3"`')] = None,
) -> int | None:
    """The version an `If-Match` header names (`"3"`, `W/"3"` or `3`); None without one or for `*` (any version)."""
    if value is None or value.strip() == "*":
        return None
    tag = value.strip().removeprefix("W/").strip('"')
    if not tag.isdecimal() or len(tag) > 18:
        raise ApiError(400, WritingErrorCode.INVALID_IF_MATCH, f'If-Match 应为读到的 ETag，例如 "3"：{value[:40]}')
    return int(tag)


IfMatch = Annotated[int | None, Depends(if_match)]
WRITE_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"description": "INVALID_IF_MATCH: If-Match is not an ETag"},
    412: {"description": "ITEM_CHANGED: If-Match names an older version; the ETag header names the current one"},
}


def etag(version: int) -> str:
    return f'"{version}"'


class Versioned(Protocol):
    """An item of a project: its version is its ETag."""

    @property
    def version(self) -> int: ...


VersionedT = TypeVar("VersionedT", bound=Versioned)


def tagged(response: Response, item: VersionedT) -> VersionedT:
    """`item` as the answer, with its ETag."""
    response.headers["ETag"] = etag(item.version)
    return item


async def call_store(store: ProjectStore, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`method` of the store in a thread; an item that is not found (or not the caller's) is a 404, a relationship
    moved onto a pair that already has one a 409."""
    try:
        return await store.run(method, *args, **kwargs)
    except NotFoundError as err:
        code, message = _NOT_FOUND[err.kind]
        raise ApiError(404, code, f"{message}：{err.item_id}") from err
    except PairTakenError as err:
        message = f"{err.source}与{err.target}之间已有一条关系，请修改那一条"
        raise ApiError(409, WritingErrorCode.RELATIONSHIP_EXISTS, message) from err
    except StaleVersionError as err:
        if err.kind == "chapter_list":
            message = "章节列表在你读取之后已有改动（增删、移动或修改了章节），请重新读取后再排序"
        else:
            what = _NOT_FOUND[err.kind][1].removeprefix("没有")
            message = f"{what}已被修改（现在是版本 {err.current}），请重新读取后再改"
        raise ApiError(412, WritingErrorCode.ITEM_CHANGED, message, {"ETag": etag(err.current)}) from err
    except ChapterOrderError as err:
        raise ApiError(422, WritingErrorCode.CHAPTER_ORDER_INVALID, str(err)) from err
    except LimitReachedError as err:
        if err.kind == "project":
            message = f"最多 {err.limit} 个写作项目（at most {err.limit} projects）：请先删除不用的项目"
            raise ApiError(422, WritingErrorCode.PROJECT_LIMIT_REACHED, message) from err
        message = f"一个项目最多 {err.limit} 章（at most {err.limit} chapters a project）"
        raise ApiError(422, WritingErrorCode.CHAPTER_LIMIT_REACHED, message) from err
    except VersionNotFoundError as err:
        message = f"章节 {err.chapter_id} 没有版本 {err.number}（或已不在保留的版本里）"
        raise ApiError(404, WritingErrorCode.CHAPTER_VERSION_NOT_FOUND, message) from err


@router.post("", response_model=Project, status_code=201)
async def create_project(body: ProjectIn, store: Projects, principal: Principal) -> Project:
    """A new project: `{name, genre?}`; answers with its `projectId`."""
    return await call_store(store, store.create_project, principal, body)


@router.get("", response_model=list[Project])
async def list_projects(store: Projects, principal: Principal) -> list[Project]:
    """The caller's projects, oldest first."""
    return await call_store(store, store.projects, principal)


@router.get("/{project_id}", response_model=Project)
async def get_project(project_id: str, response: Response, store: Projects, principal: Principal) -> Project:
    """The project; its ETag is its revision."""
    project = await call_store(store, store.project, principal, project_id)
    response.headers["ETag"] = etag(project.revision)
    return project


@router.delete("/{project_id}", status_code=204, response_class=Response, responses=WRITE_RESPONSES)
async def delete_project(
    project_id: str, request: Request, store: Projects, principal: Principal, expected: IfMatch
) -> Response:
    """The project with all its chapters (and their versions), characters, notes and proposals, its conversations'
    turns and its search index (`stores.project_removal`, in a thread); runs already started on it end with
    PROJECT_NOT_FOUND where they next read it, and the turn they would record is not kept."""
    removal: ProjectRemoval = request.app.state.project_removal
    await call_store(store, removal.delete, principal, project_id, expected)
    return Response(status_code=204)


@router.post("/{project_id}/chapters", response_model=Chapter, status_code=201)
async def add_chapter(
    project_id: str, body: ChapterIn, response: Response, store: Projects, principal: Principal
) -> Chapter:
    """A chapter `{title, content}`, numbered after the project's last one."""
    return tagged(response, await call_store(store, store.add_chapter, principal, project_id, body))


@router.get("/{project_id}/chapters", response_model=list[Chapter])
async def list_chapters(project_id: str, response: Response, store: Projects, principal: Principal) -> list[Chapter]:
    """The chapters in order; the list's ETag (`If-Match` of `POST …/chapters/order`) changes with any of them."""
    chapters = await call_store(store, store.chapters, principal, project_id)
    response.headers["ETag"] = etag(chapter_list_tag(chapters))
    return chapters


@router.get("/{project_id}/chapters/{chapter_id}", response_model=Chapter)
async def get_chapter(
    project_id: str, chapter_id: str, response: Response, store: Projects, principal: Principal
) -> Chapter:
    return tagged(response, await call_store(store, store.chapter, principal, project_id, chapter_id))


@router.put("/{project_id}/chapters/{chapter_id}", response_model=Chapter, responses=WRITE_RESPONSES)
async def update_chapter(
    project_id: str,
    chapter_id: str,
    body: ChapterIn,
    response: Response,
    store: Projects,
    principal: Principal,
    expected: IfMatch,
) -> Chapter:
    return tagged(
        response, await call_store(store, store.update_chapter, principal, project_id, chapter_id, body, expected)
    )


@router.delete(
    "/{project_id}/chapters/{chapter_id}", status_code=204, response_class=Response, responses=WRITE_RESPONSES
)
async def delete_chapter(
    project_id: str, chapter_id: str, store: Projects, principal: Principal, expected: IfMatch
) -> Response:
    await call_store(store, store.delete_chapter, principal, project_id, chapter_id, expected)
    return Response(status_code=204)


@router.post("/{project_id}/characters", response_model=Character, status_code=201)
async def add_character(
    project_id: str, body: CharacterIn, response: Response, store: Projects, principal: Principal
) -> Character:
    """A character `{name, description}`."""
    return tagged(response, await call_store(store, store.add_character, principal, project_id, body))


@router.get("/{project_id}/characters", response_model=list[Character])
async def list_characters(project_id: str, store: Projects, principal: Principal) -> list[Character]:
    return await call_store(store, store.characters, principal, project_id)


@router.get("/{project_id}/characters/{character_id}", response_model=Character)
async def get_character(
    project_id: str, character_id: str, response: Response, store: Projects, principal: Principal
) -> Character:
    return tagged(response, await call_store(store, store.character, principal, project_id, character_id))


@router.put("/{project_id}/characters/{character_id}", response_model=Character, responses=WRITE_RESPONSES)
async def update_character(
    project_id: str,
    character_id: str,
    body: CharacterIn,
    response: Response,
    store: Projects,
    principal: Principal,
    expected: IfMatch,
) -> Character:
    return tagged(
        response, await call_store(store, store.update_character, principal, project_id, character_id, body, expected)
    )


@router.delete(
    "/{project_id}/characters/{character_id}", status_code=204, response_class=Response, responses=WRITE_RESPONSES
)
async def delete_character(
    project_id: str, character_id: str, store: Projects, principal: Principal, expected: IfMatch
) -> Response:
    await call_store(store, store.delete_character, principal, project_id, character_id, expected)
    return Response(status_code=204)


@router.post("/{project_id}/plot-loops", response_model=PlotLoop, status_code=201)
async def add_plot_loop(
    project_id: str, body: PlotLoopIn, response: Response, store: Projects, principal: Principal
) -> PlotLoop:
    """A plot loop (伏笔) `{title, description, status, plantedInChapter, resolvedInChapter}`."""
    return tagged(response, await call_store(store, store.add_plot_loop, principal, project_id, body))


@router.get("/{project_id}/plot-loops", response_model=list[PlotLoop])
async def list_plot_loops(project_id: str, store: Projects, principal: Principal) -> list[PlotLoop]:
    """By the chapter each is planted in; those without one last."""
    return await call_store(store, store.plot_loops, principal, project_id)


@router.get("/{project_id}/plot-loops/{plot_loop_id}", response_model=PlotLoop)
async def get_plot_loop(
    project_id: str, plot_loop_id: str, response: Response, store: Projects, principal: Principal
) -> PlotLoop:
    return tagged(response, await call_store(store, store.plot_loop, principal, project_id, plot_loop_id))


@router.put("/{project_id}/plot-loops/{plot_loop_id}", response_model=PlotLoop, responses=WRITE_RESPONSES)
async def update_plot_loop(
    project_id: str,
    plot_loop_id: str,
    body: PlotLoopIn,
    response: Response,
    store: Projects,
    principal: Principal,
    expected: IfMatch,
) -> PlotLoop:
    return tagged(
        response, await call_store(store, store.update_plot_loop, principal, project_id, plot_loop_id, body, expected)
    )


@router.delete(
    "/{project_id}/plot-loops/{plot_loop_id}", status_code=204, response_class=Response, responses=WRITE_RESPONSES
)
async def delete_plot_loop(
    project_id: str, plot_loop_id: str, store: Projects, principal: Principal, expected: IfMatch
) -> Response:
    await call_store(store, store.delete_plot_loop, principal, project_id, plot_loop_id, expected)
    return Response(status_code=204)


@router.post("/{project_id}/style-samples", response_model=StyleSample, status_code=201)
async def add_style_sample(
    project_id: str, body: StyleSampleIn, response: Response, store: Projects, principal: Principal
) -> StyleSample:
    """A passage in the writer's voice `{title, text}`, which the writer agent imitates."""
    return tagged(response, await call_store(store, store.add_style_sample, principal, project_id, body))


@router.get("/{project_id}/style-samples", response_model=list[StyleSample])
async def list_style_samples(project_id: str, store: Projects, principal: Principal) -> list[StyleSample]:
    return await call_store(store, store.style_samples, principal, project_id)


@router.get("/{project_id}/style-samples/{sample_id}", response_model=StyleSample)
async def get_style_sample(
    project_id: str, sample_id: str, response: Response, store: Projects, principal: Principal
) -> StyleSample:
    return tagged(response, await call_store(store, store.style_sample, principal, project_id, sample_id))


@router.put("/{project_id}/style-samples/{sample_id}", response_model=StyleSample, responses=WRITE_RESPONSES)
async def update_style_sample(
    project_id: str,
    sample_id: str,
    body: StyleSampleIn,
    response: Response,
    store: Projects,
    principal: Principal,
    expected: IfMatch,
) -> StyleSample:
    return tagged(
        response, await call_store(store, store.update_style_sample, principal, project_id, sample_id, body, expected)
    )


@router.delete(
    "/{project_id}/style-samples/{sample_id}", status_code=204, response_class=Response, responses=WRITE_RESPONSES
)
async def delete_style_sample(
    project_id: str, sample_id: str, store: Projects, principal: Principal, expected: IfMatch
) -> Response:
    await call_store(store, store.delete_style_sample, principal, project_id, sample_id, expected)
    return Response(status_code=204)


@router.post("/{project_id}/world-notes", response_model=WorldNote, status_code=201)
async def add_world_note(
    project_id: str, body: WorldNoteIn, response: Response, store: Projects, principal: Principal
) -> WorldNote:
    """A note on the story's world (设定) `{title, content}`."""
    return tagged(response, await call_store(store, store.add_world_note, principal, project_id, body))


@router.get("/{project_id}/world-notes", response_model=list[WorldNote])
async def list_world_notes(project_id: str, store: Projects, principal: Principal) -> list[WorldNote]:
    return await call_store(store, store.world_notes, principal, project_id)


@router.get("/{project_id}/world-notes/{note_id}", response_model=WorldNote)
async def get_world_note(
    project_id: str, note_id: str, response: Response, store: Projects, principal: Principal
) -> WorldNote:
    return tagged(response, await call_store(store, store.world_note, principal, project_id, note_id))


@router.put("/{project_id}/world-notes/{note_id}", response_model=WorldNote, responses=WRITE_RESPONSES)
async def update_world_note(
    project_id: str,
    note_id: str,
    body: WorldNoteIn,
    response: Response,
    store: Projects,
    principal: Principal,
    expected: IfMatch,
) -> WorldNote:
    return tagged(
        response, await call_store(store, store.update_world_note, principal, project_id, note_id, body, expected)
    )


@router.delete(
    "/{project_id}/world-notes/{note_id}", status_code=204, response_class=Response, responses=WRITE_RESPONSES
)
async def delete_world_note(
    project_id: str, note_id: str, store: Projects, principal: Principal, expected: IfMatch
) -> Response:
    await call_store(store, store.delete_world_note, principal, project_id, note_id, expected)
    return Response(status_code=204)


@router.post(
    "/{project_id}/relationships",
    response_model=Relationship,
    status_code=201,
    responses={200: {"model": Relationship, "description": "The pair already had a relationship: now this one."}},
)
async def upsert_relationship(
    project_id: str, body: RelationshipIn, response: Response, store: Projects, principal: Principal
) -> Relationship:
    """How two characters stand to each other `{source, target, kind, description}`, e.g. 林舟 — 师徒 — 苏念. A pair
    has one relationship whichever way round it is written: 201 when the pair had none, 200 when its relationship
    is replaced by this one. `source` and `target` are names, not character ids, and need not be characters of
    the project yet: a writer may sketch relationships before writing the characters down."""
    relationship, outcome = await call_store(store, store.upsert_relationship, principal, project_id, body)
    if outcome != "added":
        response.status_code = 200
    return tagged(response, relationship)


@router.get("/{project_id}/relationships", response_model=list[Relationship])
async def list_relationships(project_id: str, store: Projects, principal: Principal) -> list[Relationship]:
    """By source, then target."""
    return await call_store(store, store.relationships, principal, project_id)


@router.get("/{project_id}/relationships/{relationship_id}", response_model=Relationship)
async def get_relationship(
    project_id: str, relationship_id: str, response: Response, store: Projects, principal: Principal
) -> Relationship:
    return tagged(response, await call_store(store, store.relationship, principal, project_id, relationship_id))


@router.put("/{project_id}/relationships/{relationship_id}", response_model=Relationship, responses=WRITE_RESPONSES)
async def update_relationship(
    project_id: str,
    relationship_id: str,
    body: RelationshipIn,
    response: Response,
    store: Projects,
    principal: Principal,
    expected: IfMatch,
) -> Relationship:
    """The relationship changed, its pair too; 409 `RELATIONSHIP_EXISTS` if another relationship joins that pair."""
    return tagged(
        response,
        await call_store(store, store.update_relationship, principal, project_id, relationship_id, body, expected),
    )


@router.delete(
    "/{project_id}/relationships/{relationship_id}", status_code=204, response_class=Response, responses=WRITE_RESPONSES
)
async def delete_relationship(
    project_id: str, relationship_id: str, store: Projects, principal: Principal, expected: IfMatch
) -> Response:
    await call_store(store, store.delete_relationship, principal, project_id, relationship_id, expected)
    return Response(status_code=204)
