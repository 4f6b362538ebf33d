"""What agents proposed for a project (issue 28 item 2): listed with their source run, accepted (the item written
into the project, marked as accepted from that run) or rejected. Owner-scoped like every project route: another
principal's project is not found."""

from collections.abc import Callable
from typing import Annotated, ParamSpec, TypeVar

from fastapi import APIRouter, Query

from api.bodies import StrictJsonRoute
from api.deps import Principal
from api.errors import ApiError
from api.routes.writing import Projects, call_store
from models.writing.errors import WritingErrorCode
from models.writing.proposals import Proposal, ProposalStatus
from stores.writing_projects import ProjectStore
from stores.writing_proposals import (
    ProposalDecidedError,
    ProposalNeedsCharacterError,
    ProposalNotFoundError,
    ProposalStaleError,
)

router = APIRouter(prefix="/v1/writing/projects", tags=["writing"], route_class=StrictJsonRoute)

P = ParamSpec("P")
T = TypeVar("T")

DECIDE_RESPONSES: dict[int | str, dict[str, str]] = {
    404: {"description": "PROJECT_NOT_FOUND, or PROPOSAL_NOT_FOUND"},
    409: {"description": "PROPOSAL_DECIDED (accepted or rejected already), or PROPOSAL_NEEDS_CHARACTER"},
    412: {"description": "PROPOSAL_STALE: the item it changes was changed since it was proposed"},
}


async def _call(store: ProjectStore, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`call_store`, with a proposal's own refusals as their codes."""
    try:
        return await call_store(store, method, *args, **kwargs)
    except ProposalNotFoundError as err:
        raise ApiError(404, WritingErrorCode.PROPOSAL_NOT_FOUND, f"没有这个提议：{err.proposal_id}") from err
    except ProposalDecidedError as err:
        message = f"提议 {err.proposal_id} 已经{'采纳' if err.status == 'accepted' else '拒绝'}过了"
        raise ApiError(409, WritingErrorCode.PROPOSAL_DECIDED, message) from err
    except ProposalNeedsCharacterError as err:
        message = f"项目里还没有角色：{'、'.join(err.names)}；请先添加或采纳这些角色"
        raise ApiError(409, WritingErrorCode.PROPOSAL_NEEDS_CHARACTER, message) from err
    except ProposalStaleError as err:
        message = "提议之后这条关系已被修改（或新增、删除），采纳会覆盖你的修改；请拒绝它，或按提议手动修改"
        raise ApiError(412, WritingErrorCode.PROPOSAL_STALE, message) from err


@router.get("/{project_id}/proposals", response_model=list[Proposal])
async def list_proposals(
    project_id: str,
    store: Projects,
    principal: Principal,
    status: Annotated[ProposalStatus | None, Query(description="only these (all when absent)")] = None,
) -> list[Proposal]:
    """The project's proposals, oldest first: source run, kind, the proposed item and, for a change, `before`."""
    return await _call(store, store.proposals, principal, project_id, status)


@router.post("/{project_id}/proposals/{proposal_id}/accept", response_model=Proposal, responses=DECIDE_RESPONSES)
async def accept_proposal(project_id: str, proposal_id: str, store: Projects, principal: Principal) -> Proposal:
    """The proposed item written into the project (`origin: accepted`, `sourceRunId`); the proposal answers with
    `itemId`. A change of an item is refused with 412 `PROPOSAL_STALE` when that item changed since."""
    return await _call(store, store.accept_proposal, principal, project_id, proposal_id)


@router.post("/{project_id}/proposals/{proposal_id}/reject", response_model=Proposal, responses=DECIDE_RESPONSES)
async def reject_proposal(project_id: str, proposal_id: str, store: Projects, principal: Principal) -> Proposal:
    """The proposal set aside: nothing is written."""
    return await _call(store, store.reject_proposal, principal, project_id, proposal_id)
