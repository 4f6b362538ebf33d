"""Req 4.4 over HTTP: a character design's own stream says what its relationship update changed (an existing
pair's kind with its before and after, the after being the kind the request names), before its `check_result` and
`done`, the same result the update's own run streams."""

from tests.api.conftest import ALICE, Gateway
from tests.security.test_proposals import cast, chat
from tests.sse import parse_sse


async def test_req_4_4_a_designs_own_stream_shows_a_changed_relationship_with_before_and_after(keyed: Gateway) -> None:
    base, _ = await cast(keyed)

    _, events = await chat(keyed, base, "设计林舟和苏念的关系：他们变成了宿敌")

    update = next(e.data["data"] for e in events if e.event == "relationship_update")
    assert update["status"] == "proposed"
    (change,) = update["changes"]
    assert (change["before"]["kind"], change["after"]["kind"]) == ("师徒", "宿敌"), "the kind the request names"
    assert {change["after"]["source"], change["after"]["target"]} == {"林舟", "苏念"}
    assert update["changed"] == [change["after"]] and update["total"] == 1
    assert [e.event for e in events][-3:] == ["relationship_update", "check_result", "done"]
    child = parse_sse((await keyed.http.get(f"/v1/runs/{update['runId']}/events", headers=ALICE)).text)
    assert [e.data["data"] for e in child if e.event == "relationship_update"] == [update]
