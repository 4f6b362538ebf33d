"""Issue 28's done-when row for proposals, over HTTP on the model simulator: a WorldBuilding answer arrives as a
proposal of its run; it is neither among the project's world notes nor found by retrieval (the next request's
prompts) until the writer accepts it, and is both after, marked as accepted from that run."""

from tests.api.conftest import Gateway
from tests.api.writing.test_chat import sample_project
from tests.api.writing.test_revise_and_memory import prompt_of
from tests.api.writing.test_writing_on_simulator import chat
from tests.simulator.server import Simulator

TIME_SCALE = 0.05
WORLD = "帮我设定这个城市的世界观"


def retrieved(simulator: Simulator, since: int, text: str) -> bool:
    """Whether a prompt sent since call `since` carries `text` (what retrieval gave the agents)."""
    return any(text in prompt_of(call) for call in simulator.log[since:])


async def test_a_world_building_answer_reaches_the_project_and_retrieval_only_when_accepted(
    simulated: Gateway, simulator: Simulator
) -> None:
    http = simulated.http
    project = await sample_project(simulated)
    base = f"/v1/writing/projects/{project}"

    events, view = await chat(simulated, project, WORLD)

    setting = view["state"]["result"]["text"]
    assert setting and not view["state"]["result"]["offline"]
    update = next(e.data["data"] for e in events if e.event == "knowledge_update")
    (proposal,) = (await http.get(f"{base}/proposals?status=pending")).json()
    assert proposal["proposalId"] == update["proposalId"] and proposal["kind"] == "world_note"
    assert proposal["runId"] == view["runId"] and proposal["item"]["content"] == setting
    assert (await http.get(f"{base}/world-notes")).json() == []
    since = len(simulator.log)
    await chat(simulated, project, WORLD)
    assert not retrieved(simulator, since, setting[:60]), "a pending proposal is not retrieved"

    accepted = await http.post(f"{base}/proposals/{proposal['proposalId']}/accept")

    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    (note,) = (await http.get(f"{base}/world-notes")).json()
    assert (note["worldNoteId"], note["content"]) == (accepted.json()["itemId"], setting)
    assert (note["origin"], note["sourceRunId"]) == ("accepted", view["runId"])
    since = len(simulator.log)
    await chat(simulated, project, WORLD)
    assert retrieved(simulator, since, setting[:60]), "the accepted note is retrieved"


async def test_the_model_s_outline_proposes_its_new_plot_loops(simulated: Gateway, simulator: Simulator) -> None:
    http = simulated.http
    project = await sample_project(simulated)
    base = f"/v1/writing/projects/{project}"

    events, view = await chat(simulated, project, "帮我规划接下来三章的大纲")

    assert not view["state"]["result"]["offline"]
    structure = next(e.data["data"] for e in events if e.event == "structure_update")
    planned = structure["proposedPlotLoops"]
    assert planned and all(p["proposalId"] for p in planned)
    pending = (await http.get(f"{base}/proposals?status=pending")).json()
    assert {p["proposalId"] for p in pending if p["kind"] == "plot_loop"} == {p["proposalId"] for p in planned}
    assert all(p["runId"] == view["runId"] for p in pending)
    before = len((await http.get(f"{base}/plot-loops")).json())

    accepted = await http.post(f"{base}/proposals/{planned[0]['proposalId']}/accept")

    assert accepted.status_code == 200, accepted.text
    loops = (await http.get(f"{base}/plot-loops")).json()
    assert len(loops) == before + 1
    (loop,) = [loop for loop in loops if loop["plotLoopId"] == accepted.json()["itemId"]]
    assert (loop["title"], loop["origin"], loop["sourceRunId"]) == (planned[0]["title"], "accepted", view["runId"])
