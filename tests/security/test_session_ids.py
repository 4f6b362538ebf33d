"""Issue 50 #2: a session's workflow id names its owner unambiguously. Principal `team` sending session `qa-s1` and
principal `team-qa` sending session `s1` were both `session-team-qa-s1`: `team`'s turn ran in `team-qa`'s session,
as `team-qa`, with its previous image. Now each gets a session of its own, and a session started under the old ids
refuses a message from anyone but its owner (409 `SESSION_UNAVAILABLE`)."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import WithStartWorkflowOperation
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy
from temporalio.testing import WorkflowEnvironment

from models.image.runs import ChatTurn, SessionInput, SessionSnapshot
from models.image.state import UserInput
from models.search_attributes import OWNER, SESSION_ID
from stores.style_store import LanceStyleStore
from tests.api.conftest import Gateway, running_gateway
from tests.sse import parse_sse
from workflows.image.session import ImageSessionWorkflow, session_workflow_id

TEAM = {"authorization": "Bearer team-key"}
TEAM_QA = {"authorization": "Bearer team-qa-key"}


@pytest.fixture
async def hyphenated(
    dev_env: WorkflowEnvironment, tmp_path: Path, api_style_store: LanceStyleStore
) -> AsyncIterator[Gateway]:
    """Principals `team` and `team-qa`, on the dev server (the time-skipping server loses an update its validator
    refuses)."""
    keys = "team=team-key,team-qa=team-qa-key"
    async with running_gateway(dev_env, tmp_path, api_style_store, api_keys=keys) as gateway:
        yield gateway


async def chat(gateway: Gateway, headers: dict[str, str], session: str, owner: str, text: str) -> str:
    response = await gateway.http.post("/api/agent/chat", json={"text": text, "sessionId": session}, headers=headers)
    assert response.status_code == 200, response.text
    gateway.sessions.add(session_workflow_id(owner, session))
    assert parse_sse(response.text)[-1].event == "stream_end"
    return response.headers["x-run-id"]


async def test_two_principals_whose_names_and_session_ids_join_alike_get_sessions_of_their_own(
    hyphenated: Gateway,
) -> None:
    theirs = await chat(hyphenated, TEAM_QA, "s1", "team-qa", "画一只猫")
    mine = await chat(hyphenated, TEAM, "qa-s1", "team", "画一只狗")

    assert (await hyphenated.http.get(f"/v1/runs/{mine}", headers=TEAM)).status_code == 200  # it ran as `team`
    assert (await hyphenated.http.get(f"/v1/runs/{mine}", headers=TEAM_QA)).status_code == 404
    assert (await hyphenated.http.get(f"/v1/runs/{theirs}", headers=TEAM)).status_code == 404
    view = (await hyphenated.http.get(f"/v1/runs/{mine}", headers=TEAM)).json()
    assert view["state"]["messages"] == []  # the first turn of its own session: nothing of `team-qa`'s cat
    assert session_workflow_id("team", "qa-s1") != session_workflow_id("team-qa", "s1")


async def test_a_session_from_before_refuses_a_message_of_another_principal(hyphenated: Gateway) -> None:
    legacy = "session-team-qa-s2"  # `team-qa`'s session `s2` as its id was written before
    settings = hyphenated.settings
    start = WithStartWorkflowOperation(
        ImageSessionWorkflow.run,
        SessionInput(snapshot=SessionSnapshot(session_id="s2"), owner="team-qa"),
        id=legacy,
        task_queue=settings.task_queue("image"),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        search_attributes=TypedSearchAttributes(
            [SearchAttributePair(OWNER, "team-qa"), SearchAttributePair(SESSION_ID, "s2")]
        ),
    )
    client = hyphenated.env.client
    await client.execute_update_with_start_workflow(
        ImageSessionWorkflow.submit, ChatTurn(user_input=UserInput(text="画一只猫")), start_workflow_operation=start
    )
    hyphenated.sessions.add(legacy)
    assert session_workflow_id("team", "qa-s2") == legacy  # an owner without `-` keeps its ids

    refused = await hyphenated.http.post(
        "/api/agent/chat", json={"text": "画一只狗", "sessionId": "qa-s2"}, headers=TEAM
    )

    assert refused.status_code == 409, refused.text
    assert refused.json()["error"]["code"] == "SESSION_UNAVAILABLE"
    assert (await client.get_workflow_handle(legacy).query(ImageSessionWorkflow.state)).turns == 1
