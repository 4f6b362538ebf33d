"""Proposals, not silent canon (issue 28 item 2), over HTTP with two principals and the offline agents: what a
character design or world building wants written into the project waits as a proposal of its run; a relationship
for a pair the project has shows its before and after (in the proposal and in the run's stream), and accepting it
after the writer edited that relationship is a 412 `PROPOSAL_STALE`; the offline world builder's invented places
are a proposal, never a world note; another principal can neither list nor accept a project's proposals."""

from typing import Any

from tests.api.conftest import ALICE, BOB, Gateway
from tests.sse import parse_sse


async def cast(gateway: Gateway) -> tuple[str, str]:
    """Alice's project with 林舟 and 苏念, who are 师徒; its base path and the relationship's id."""
    http = gateway.http
    project = (await http.post("/v1/writing/projects", json={"name": "长夜"}, headers=ALICE)).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "林舟推开门，苏念在等他。"}, headers=ALICE)
    for name in ("林舟", "苏念"):
        await http.post(f"{base}/characters", json={"name": name, "description": "主角"}, headers=ALICE)
    bond = {"source": "林舟", "target": "苏念", "kind": "师徒", "description": "十年前收她为徒"}
    relationship = await http.post(f"{base}/relationships", json=bond, headers=ALICE)
    assert relationship.status_code == 201, relationship.text
    return base, relationship.json()["relationshipId"]


async def chat(gateway: Gateway, base: str, text: str) -> tuple[str, list[Any]]:
    response = await gateway.http.post(f"{base}/chat", json={"text": text}, headers=ALICE)
    assert response.status_code == 200, response.text
    return response.headers["x-run-id"], parse_sse(response.text)


async def test_a_relationship_change_is_a_proposal_with_before_and_after_and_a_stale_one_is_refused(
    keyed: Gateway,
) -> None:
    http = keyed.http
    base, relationship_id = await cast(keyed)

    _, events = await chat(keyed, base, "设计林舟和苏念的关系：他们变成了宿敌")

    scheduled = next(e.data["data"] for e in events if e.event == "relationship_update")
    child = parse_sse((await http.get(f"/v1/runs/{scheduled['runId']}/events", headers=ALICE)).text)
    update = next(e.data["data"] for e in child if e.event == "relationship_update")
    assert update["status"] == "proposed" and len(update["changes"]) == 1
    change = update["changes"][0]
    assert change["before"]["kind"] == "师徒" and change["after"]["kind"] != "师徒"
    listed = (await http.get(f"{base}/proposals?status=pending", headers=ALICE)).json()
    assert [(p["proposalId"], p["kind"], p["runId"]) for p in listed] == [
        (change["proposalId"], "relationship", scheduled["runId"])
    ]
    assert listed[0]["before"]["kind"] == "师徒" and listed[0]["targetId"] == relationship_id
    stored = (await http.get(f"{base}/relationships/{relationship_id}", headers=ALICE)).json()
    assert stored["kind"] == "师徒" and stored["origin"] == "writer", "the project is unchanged until accepted"

    edit = {"source": "林舟", "target": "苏念", "kind": "师徒", "description": "她已出师"}
    edited = await http.put(f"{base}/relationships/{relationship_id}", json=edit, headers=ALICE)
    assert edited.status_code == 200, edited.text
    accepted = await http.post(f"{base}/proposals/{change['proposalId']}/accept", headers=ALICE)

    assert accepted.status_code == 412 and accepted.json()["error"]["code"] == "PROPOSAL_STALE"
    kept = (await http.get(f"{base}/relationships/{relationship_id}", headers=ALICE)).json()
    assert (kept["kind"], kept["description"]) == ("师徒", "她已出师"), "the writer's edit stays"
    rejected = await http.post(f"{base}/proposals/{change['proposalId']}/reject", headers=ALICE)
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    again = await http.post(f"{base}/proposals/{change['proposalId']}/accept", headers=ALICE)
    assert again.status_code == 409 and again.json()["error"]["code"] == "PROPOSAL_DECIDED"


async def test_a_change_accepted_while_the_relationship_is_as_proposed_is_written_from_its_run(keyed: Gateway) -> None:
    http = keyed.http
    base, relationship_id = await cast(keyed)
    _, events = await chat(keyed, base, "设计林舟和苏念的关系：他们变成了宿敌")
    scheduled = next(e.data["data"] for e in events if e.event == "relationship_update")
    await http.get(f"/v1/runs/{scheduled['runId']}/events", headers=ALICE)
    (proposal,) = (await http.get(f"{base}/proposals?status=pending", headers=ALICE)).json()

    accepted = await http.post(f"{base}/proposals/{proposal['proposalId']}/accept", headers=ALICE)

    assert accepted.status_code == 200 and accepted.json()["itemId"] == relationship_id
    stored = (await http.get(f"{base}/relationships/{relationship_id}", headers=ALICE)).json()
    assert stored["kind"] == proposal["item"]["kind"] and stored["version"] == 2
    assert (stored["origin"], stored["sourceRunId"]) == ("accepted", scheduled["runId"])


async def test_a_new_characters_relationship_is_accepted_only_after_the_character(keyed: Gateway) -> None:
    http = keyed.http
    base, _ = await cast(keyed)
    _, events = await chat(keyed, base, "设计一个新角色：码头的走私头目，他和林舟是旧识")
    scheduled = next(e.data["data"] for e in events if e.event == "relationship_update")
    await http.get(f"/v1/runs/{scheduled['runId']}/events", headers=ALICE)
    proposed = (await http.get(f"{base}/proposals?status=pending", headers=ALICE)).json()
    (character,) = [p for p in proposed if p["kind"] == "character"]
    name = character["item"]["name"]
    relationship = next(p for p in proposed if p["kind"] == "relationship" and name in p["item"].values())
    assert not [c for c in (await http.get(f"{base}/characters", headers=ALICE)).json() if c["name"] == name]

    early = await http.post(f"{base}/proposals/{relationship['proposalId']}/accept", headers=ALICE)
    assert early.status_code == 409 and early.json()["error"]["code"] == "PROPOSAL_NEEDS_CHARACTER"
    added = await http.post(f"{base}/proposals/{character['proposalId']}/accept", headers=ALICE)
    accepted = await http.post(f"{base}/proposals/{relationship['proposalId']}/accept", headers=ALICE)

    assert (added.status_code, accepted.status_code) == (200, 200)
    (stored,) = [c for c in (await http.get(f"{base}/characters", headers=ALICE)).json() if c["name"] == name]
    assert (stored["characterId"], stored["origin"]) == (added.json()["itemId"], "accepted")
    bond = (await http.get(f"{base}/relationships/{accepted.json()['itemId']}", headers=ALICE)).json()
    assert name in (bond["source"], bond["target"]) and bond["sourceRunId"] == scheduled["runId"]


async def test_offline_world_building_is_a_proposal_never_a_world_note(keyed: Gateway) -> None:
    http = keyed.http
    base, _ = await cast(keyed)

    run_id, events = await chat(keyed, base, "帮我设定这个城市的世界观")

    update = next(e.data["data"] for e in events if e.event == "knowledge_update")
    assert update["proposalId"] and update.get("noteId") is None
    assert (await http.get(f"{base}/world-notes", headers=ALICE)).json() == []
    (proposal,) = (await http.get(f"{base}/proposals", headers=ALICE)).json()
    assert (proposal["proposalId"], proposal["kind"], proposal["runId"]) == (update["proposalId"], "world_note", run_id)
    assert proposal["status"] == "pending" and proposal["before"] is None


async def test_another_principal_cannot_list_accept_or_reject_a_projects_proposals(keyed: Gateway) -> None:
    http = keyed.http
    base, _ = await cast(keyed)
    await chat(keyed, base, "帮我设定这个城市的世界观")
    (proposal,) = (await http.get(f"{base}/proposals", headers=ALICE)).json()

    listed = await http.get(f"{base}/proposals", headers=BOB)
    accepted = await http.post(f"{base}/proposals/{proposal['proposalId']}/accept", headers=BOB)
    rejected = await http.post(f"{base}/proposals/{proposal['proposalId']}/reject", headers=BOB)

    assert [r.status_code for r in (listed, accepted, rejected)] == [404, 404, 404]
    assert {r.json()["error"]["code"] for r in (listed, accepted, rejected)} == {"PROJECT_NOT_FOUND"}
    assert (await http.get(f"{base}/proposals?status=pending", headers=ALICE)).json() == [proposal]
    assert (await http.get(f"{base}/world-notes", headers=ALICE)).json() == []


async def test_a_setting_the_project_or_a_pending_proposal_says_already_is_not_filed_again(keyed: Gateway) -> None:
    http = keyed.http
    base, _ = await cast(keyed)
    await chat(keyed, base, "帮我设定这个城市的世界观")
    (first,) = (await http.get(f"{base}/proposals", headers=ALICE)).json()

    _, events = await chat(keyed, base, "帮我设定这个城市的世界观")

    update = next(e.data["data"] for e in events if e.event == "knowledge_update")
    assert update.get("proposalId") is None and update["alreadyThere"]["existingId"] == first["proposalId"]
    checked = next(
        e.data["data"] for e in events if e.event == "check_result" and e.data["data"]["check"] == "knowledge"
    )
    assert "已有" in checked["message"]
    assert [p["proposalId"] for p in (await http.get(f"{base}/proposals", headers=ALICE)).json()] == [
        first["proposalId"]
    ]
    rejected = await http.post(f"{base}/proposals/{first['proposalId']}/reject", headers=ALICE)
    assert rejected.status_code == 200

    _, events = await chat(keyed, base, "帮我设定这个城市的世界观")

    update = next(e.data["data"] for e in events if e.event == "knowledge_update")
    assert update["proposalId"] and "alreadyThere" not in update, "a rejected proposal does not hold a setting back"


async def test_a_design_proposing_what_is_pending_already_files_nothing_new(keyed: Gateway) -> None:
    http = keyed.http
    base, _ = await cast(keyed)
    request = "设计一个新角色：码头的走私头目，他和林舟是旧识"
    for _ in range(2):
        _, events = await chat(keyed, base, request)
        scheduled = next(e.data["data"] for e in events if e.event == "relationship_update")
        child = parse_sse((await http.get(f"/v1/runs/{scheduled['runId']}/events", headers=ALICE)).text)
        update = next(e.data["data"] for e in child if e.event == "relationship_update")

    proposals = (await http.get(f"{base}/proposals", headers=ALICE)).json()
    assert {p["runId"] for p in proposals} != {scheduled["runId"]}, "the second design filed nothing"
    assert not any(p["runId"] == scheduled["runId"] for p in proposals)
    assert update["changes"] == [] and {a["kind"] for a in update["alreadyThere"]} >= {"character", "relationship"}
    assert "已有" in update["message"]
    edited = {"source": "林舟", "target": "苏念", "kind": "宿敌", "description": "反目"}
    rel = (await http.get(f"{base}/relationships", headers=ALICE)).json()[0]
    await http.put(f"{base}/relationships/{rel['relationshipId']}", json=edited, headers=ALICE)
    _, events = await chat(keyed, base, "设计林舟和苏念的关系：他们变成了宿敌")
    scheduled = next(e.data["data"] for e in events if e.event == "relationship_update")
    await http.get(f"/v1/runs/{scheduled['runId']}/events", headers=ALICE)
    pairs = [p for p in (await http.get(f"{base}/proposals", headers=ALICE)).json() if p["runId"] == scheduled["runId"]]
    assert all(p["item"] != edited for p in pairs), "the edge the project has is not proposed"


async def test_the_outline_s_new_plot_loop_is_a_proposal_the_writer_accepts(keyed: Gateway) -> None:
    http = keyed.http
    base, _ = await cast(keyed)

    run_id, events = await chat(keyed, base, "帮我规划接下来三章的大纲")

    structure = next(e.data["data"] for e in events if e.event == "structure_update")
    (planned,) = structure["proposedPlotLoops"]
    assert planned["proposalId"] and planned["title"] in structure["sections"][0]["plotLoops"]
    assert (await http.get(f"{base}/plot-loops", headers=ALICE)).json() == [], "not canon until accepted"
    (proposal,) = (await http.get(f"{base}/proposals?status=pending", headers=ALICE)).json()
    assert (proposal["proposalId"], proposal["kind"], proposal["runId"]) == (planned["proposalId"], "plot_loop", run_id)

    accepted = await http.post(f"{base}/proposals/{proposal['proposalId']}/accept", headers=ALICE)

    assert accepted.status_code == 200, accepted.text
    (loop,) = (await http.get(f"{base}/plot-loops", headers=ALICE)).json()
    assert (loop["plotLoopId"], loop["title"], loop["status"]) == (accepted.json()["itemId"], planned["title"], "open")
    assert (loop["origin"], loop["sourceRunId"], loop["plantedInChapter"]) == ("accepted", run_id, 2)
    _, events = await chat(keyed, base, "帮我规划接下来三章的大纲")
    again = next(e.data["data"] for e in events if e.event == "structure_update")["proposedPlotLoops"]
    assert [p.get("existingId") for p in again if p["title"] == planned["title"]] == [loop["plotLoopId"]]
