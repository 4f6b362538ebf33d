"""A project's chapters as a book (issue 28 item 1): the versions every chapter keeps, a diff between two of them
and a restore; a writing run's draft applied to a chapter (a new version of it) or as a new chapter; and the
chapters' order. Writes honour `If-Match` as every item's do (`api.routes.writing`)."""

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response
from pydantic import ValidationError
from temporalio.client import WorkflowExecutionStatus

from api.bodies import StrictJsonRoute
from api.deps import Principal, TemporalClient
from api.errors import ApiError
from api.routes.runs import answered, owned_run
from api.routes.writing import WRITE_RESPONSES, IfMatch, Projects, call_store, etag, tagged
from models.errors import ErrorCode
from models.writing.agents import AgentResult
from models.writing.chapters import (
    ApplyAsChapterIn,
    ApplyToChapterIn,
    ChapterDiff,
    ChapterOrderIn,
    ChapterVersion,
    ChapterVersionInfo,
    VersionSource,
    draft_source,
)
from models.writing.errors import WritingErrorCode
from models.writing.projects import Chapter, ChapterIn
from models.writing.runs import WritingState
from stores.line_diff import unified_diff
from stores.writing_projects import chapter_list_tag
from workflows.writing.workflow import WritingWorkflow

router = APIRouter(prefix="/v1/writing/projects", tags=["writing"], route_class=StrictJsonRoute)

MAX_DIFF_LINES = 4_000
"""A diff longer than this many lines is cut (the last line says so): two whole rewrites of a long chapter."""
MAX_VERSION_NUMBER = 2**31
"""Past any chapter's number of writes, and inside SQLite's integers."""
_AGAINST = Annotated[int, Query(ge=1, le=MAX_VERSION_NUMBER, description="a version number of the same chapter")]
_NUMBER = Annotated[int, Path(ge=1, le=MAX_VERSION_NUMBER, description="a version number of the chapter")]


@router.get("/{project_id}/chapters/{chapter_id}/versions", response_model=list[ChapterVersionInfo])
async def list_versions(
    project_id: str, chapter_id: str, store: Projects, principal: Principal
) -> list[ChapterVersionInfo]:
    """The chapter's versions, newest first, without their texts: number, title, length, what produced each
    (`manual`, `draft`, `revision`, `restore`), the run it came from and when."""
    return await call_store(store, store.chapter_versions, principal, project_id, chapter_id)


@router.get("/{project_id}/chapters/{chapter_id}/versions/{number}", response_model=ChapterVersion)
async def get_version(
    project_id: str, chapter_id: str, number: _NUMBER, store: Projects, principal: Principal
) -> ChapterVersion:
    """One version with its text; 404 `CHAPTER_VERSION_NOT_FOUND` for one the chapter does not keep."""
    return await call_store(store, store.chapter_version, principal, project_id, chapter_id, number)


@router.get("/{project_id}/chapters/{chapter_id}/versions/{number}/diff", response_model=ChapterDiff)
async def diff_versions(
    project_id: str, chapter_id: str, number: _NUMBER, against: _AGAINST, store: Projects, principal: Principal
) -> ChapterDiff:
    """What changed from version `against` to version `number`, as a unified diff of their lines."""
    old = await call_store(store, store.chapter_version, principal, project_id, chapter_id, against)
    new = await call_store(store, store.chapter_version, principal, project_id, chapter_id, number)
    diff = await asyncio.to_thread(_unified, old, new)
    return ChapterDiff(number=number, against=against, diff=diff)


@router.post(
    "/{project_id}/chapters/{chapter_id}/versions/{number}/restore", response_model=Chapter, responses=WRITE_RESPONSES
)
async def restore_version(
    project_id: str,
    chapter_id: str,
    number: _NUMBER,
    response: Response,
    store: Projects,
    principal: Principal,
    expected: IfMatch,
) -> Chapter:
    """A new version of the chapter whose title and text are version `number`'s (source `restore`)."""
    restored = await call_store(
        store, store.restore_chapter_version, principal, project_id, chapter_id, number, expected
    )
    return tagged(response, restored)


@router.post("/{project_id}/chapters/order", response_model=list[Chapter], responses=WRITE_RESPONSES)
async def reorder_chapters(
    project_id: str,
    body: ChapterOrderIn,
    response: Response,
    store: Projects,
    principal: Principal,
    expected: IfMatch,
) -> list[Chapter]:
    """The chapters renumbered 1..n in the order given; `chapterIds` lists every chapter exactly once (422
    `CHAPTER_ORDER_INVALID` otherwise). `If-Match` is the chapter list's ETag (`GET …/chapters`): a list changed
    since is 412 `ITEM_CHANGED` with the current one; without it the order applies. Answers with the chapters in
    their new order and the list's new ETag."""
    chapters = await call_store(store, store.reorder_chapters, principal, project_id, body.chapter_ids, expected)
    response.headers["ETag"] = etag(chapter_list_tag(chapters))
    return chapters


@router.post("/{project_id}/chapters/apply", response_model=Chapter, status_code=201)
async def apply_as_chapter(
    project_id: str,
    body: ApplyAsChapterIn,
    response: Response,
    client: TemporalClient,
    store: Projects,
    principal: Principal,
) -> Chapter:
    """A finished writing run's draft as a new chapter (its first version is a `draft` with the run's id), at
    `position` (the later chapters move down one) or last; titled `title`, else after the run's request."""
    state = await finished_run(client, principal, project_id, body.run_id)
    title = body.title or _title_from(state.text)
    chapter = _chapter(title, _draft_text(state))
    added = await call_store(
        store, store.add_chapter, principal, project_id, chapter, body.position, "draft", body.run_id
    )
    return tagged(response, added)


@router.post("/{project_id}/chapters/{chapter_id}/apply", response_model=Chapter, responses=WRITE_RESPONSES)
async def apply_to_chapter(
    project_id: str,
    chapter_id: str,
    body: ApplyToChapterIn,
    response: Response,
    client: TemporalClient,
    store: Projects,
    principal: Principal,
    expected: IfMatch,
) -> Chapter:
    """A finished writing run's draft (or `text`, that draft as the writer edited it, or a text of their own) as
    the chapter's next version: a `revision` when the run revised this chapter, else a `draft`; `manual` without
    a run. The title stays unless `title` is given."""
    current = await call_store(store, store.chapter, principal, project_id, chapter_id)
    source: VersionSource = "manual"
    text = body.text
    if body.run_id is not None:
        state = await finished_run(client, principal, project_id, body.run_id)
        source = draft_source(_result_of(state), chapter_id)
        text = text if text is not None else _draft_text(state)
    chapter = _chapter(body.title or current.title, text or "")
    # without If-Match, the chapter as just read: a change in between is a 412, not a title silently reverted
    version = current.version if expected is None else expected
    changed = await call_store(
        store, store.update_chapter, principal, project_id, chapter_id, chapter, version, source, body.run_id
    )
    return tagged(response, changed)


async def finished_run(client: TemporalClient, principal: str, project_id: str, run_id: str) -> WritingState:
    """The state of the caller's writing run `run_id` on this project, once it has completed: 404 for any other
    run (another principal's, another kind, another project's), 409 `DRAFT_NOT_READY` before it has finished or
    when it ended without a draft."""
    missing = ApiError(404, ErrorCode.RUN_NOT_FOUND, f"这个项目没有这个写作运行：{run_id}")
    handle, description = await owned_run(client, run_id, principal)
    if description.workflow_type != WritingWorkflow.__name__:
        raise missing
    state: WritingState = await answered(handle, "state", WritingState)
    if state.project_id != project_id:
        raise missing
    if description.status != WorkflowExecutionStatus.COMPLETED:
        status = description.status.name.lower() if description.status else "unknown"
        raise ApiError(409, WritingErrorCode.DRAFT_NOT_READY, f"运行还没有完成（{status}），完成后才能应用它的草稿")
    if state.result is None or not state.result.text.strip():
        raise ApiError(409, WritingErrorCode.DRAFT_NOT_READY, "这个运行没有写出可以应用的文本")
    return state


def _chapter(title: str, content: str) -> ChapterIn:
    """The chapter a draft becomes; 422 `INVALID_REQUEST` when it is longer than a chapter may be."""
    try:
        return ChapterIn(title=title, content=content)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        raise ApiError(422, ErrorCode.INVALID_REQUEST, f"草稿不能成为章节：{problems}") from err


def _result_of(state: WritingState) -> AgentResult:
    assert state.result is not None  # finished_run refuses a run without one
    return state.result


def _draft_text(state: WritingState) -> str:
    """The run's text to apply as it is; 409 `DRAFT_IS_PLACEHOLDER` for an offline revision, which is the chapter
    unchanged under a label saying nothing was revised (apply a `text` of your own, or revise with a model)."""
    result = _result_of(state)
    if result.offline and result.target_chapter_id is not None:
        message = (
            "这是离线占位改写稿：没有接入大模型，章节并没有被改写，不能作为新版本应用"
            "（配置模型后再改写，或提交你自己改好的 text）"
        )
        raise ApiError(409, WritingErrorCode.DRAFT_IS_PLACEHOLDER, message)
    return result.text


def _title_from(request: str) -> str:
    """A new chapter's title when none is given: the start of the request that wrote it."""
    first = request.strip().splitlines()[0] if request.strip() else "新章节"
    return first[:40]


def _unified(old: ChapterVersion, new: ChapterVersion) -> str:
    lines = unified_diff(
        old.content.splitlines(),
        new.content.splitlines(),
        fromfile=f"v{old.number} {old.title}",
        tofile=f"v{new.number} {new.title}",
        lineterm="",
    )
    kept = [line for _, line in zip(range(MAX_DIFF_LINES), lines, strict=False)]
    if next(lines, None) is not None:
        kept.append(f"… (cut at {MAX_DIFF_LINES} lines)")
    return "\n".join(kept)
