"""Issue 28: a writing conversation's memory answers only to its principal. Another principal gets the 404 of a
project that does not exist for another's turns, and the same session id on their own project is a conversation
of its own: the follow-up it sends ("再紧张一点") does not reach the other's revision."""

from tests.api.conftest import ALICE, BOB, Gateway
from tests.sse import parse_sse


async def project_with_chapters(gateway: Gateway, headers: dict[str, str]) -> str:
    http = gateway.http
    project: str = (await http.post("/v1/writing/projects", json={"name": "长夜"}, headers=headers)).json()["projectId"]
    for title in ("雨夜", "码头"):
        body = {"title": title, "content": f"{title}的正文。"}
        await http.post(f"/v1/writing/projects/{project}/chapters", json=body, headers=headers)
    return project


async def chat(gateway: Gateway, project: str, text: str, headers: dict[str, str]) -> str:
    body = {"text": text, "sessionId": "shared"}
    response = await gateway.http.post(f"/v1/writing/projects/{project}/chat", json=body, headers=headers)
    assert response.status_code == 200, response.text
    assert parse_sse(response.text)[-1].event == "done"
    return response.headers["x-run-id"]


async def test_a_conversation_s_turns_answer_only_to_its_principal(keyed: Gateway) -> None:
    alices = await project_with_chapters(keyed, ALICE)
    bobs = await project_with_chapters(keyed, BOB)
    await chat(keyed, alices, "改写第二章，让节奏更紧凑", ALICE)

    stolen = await keyed.http.get(f"/v1/writing/projects/{alices}/sessions/shared/turns", headers=BOB)
    own = await keyed.http.get(f"/v1/writing/projects/{alices}/sessions/shared/turns", headers=ALICE)

    assert stolen.status_code == 404 and stolen.json()["error"]["code"] == "PROJECT_NOT_FOUND"
    assert own.status_code == 200 and [t["text"] for t in own.json()["turns"]] == ["改写第二章，让节奏更紧凑"]

    run = await chat(keyed, bobs, "再紧张一点", BOB)

    view = (await keyed.http.get(f"/v1/runs/{run}", headers=BOB)).json()
    assert view["state"]["intent"]["intent"] != "REVISE_CHAPTER", "bob's session does not continue alice's"
    listed = (await keyed.http.get(f"/v1/writing/projects/{bobs}/sessions/shared/turns", headers=BOB)).json()
    assert [t["text"] for t in listed["turns"]] == ["再紧张一点"]
