"""Issue 28 over HTTP: "改写第二章，让节奏更紧凑" proposes a new version of chapter 2 (the run's result names the
chapter; the project is unchanged until the writer applies it), and a follow-up in the same conversation
("再紧张一点") revises the same chapter with the previous turn in its prompt; applied, the revision becomes version 2
of chapter 2 and version 1 restores. On the model simulator, and offline,
where the revision says it is a placeholder and a chapter that does not exist is a CHAPTER_NOT_FOUND error."""

from typing import Any

from tests.api.conftest import Gateway
from tests.simulator.server import LoggedCall, Simulator
from tests.sse import parse_sse

TIME_SCALE = 0.05
SESSION = "novel-1"
REVISE = "改写第二章，让节奏更紧凑"
FOLLOW_UP = "再紧张一点"


async def three_chapters(gateway: Gateway) -> tuple[str, list[dict[str, Any]]]:
    http = gateway.http
    project: str = (await http.post("/v1/writing/projects", json={"name": "长夜"})).json()["projectId"]
    for title, content in [
        ("雨夜", "林舟推开门，苏念在等他。雨下了一整夜。"),
        ("码头", "林舟在码头等到天亮。船没有来，他慢慢地抽完了三支烟，才想起苏念说过的话。"),
        ("旧案", "档案室里，苏念翻出了十年前的卷宗。"),
    ]:
        response = await http.post(
            f"/v1/writing/projects/{project}/chapters", json={"title": title, "content": content}
        )
        assert response.status_code in (200, 201), response.text
    return project, await chapters(gateway, project)


async def chapters(gateway: Gateway, project: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = (await gateway.http.get(f"/v1/writing/projects/{project}/chapters")).json()
    return listed


async def chat(gateway: Gateway, project: str, text: str) -> tuple[list[Any], dict[str, Any]]:
    response = await gateway.http.post(
        f"/v1/writing/projects/{project}/chat", json={"text": text, "sessionId": SESSION}
    )
    assert response.status_code == 200, response.text
    view = (await gateway.http.get(f"/v1/runs/{response.headers['x-run-id']}")).json()
    return parse_sse(response.text), view


def prompt_of(call: LoggedCall) -> str:
    return call.request.system + "\n".join(text for _, text in call.request.messages)


async def test_a_revision_targets_chapter_2_and_a_follow_up_remembers_it(
    simulated: Gateway, simulator: Simulator
) -> None:
    project, before = await three_chapters(simulated)

    events, view = await chat(simulated, project, REVISE)

    types = [e.event for e in events]
    assert types[0] == "intent_recognized" and types[-1] == "done" and "error" not in types
    assert view["state"]["intent"]["intent"] == "REVISE_CHAPTER"
    assert types.index("agent_started") < types.index("content") < types.index("check_result")
    state = view["state"]
    result = state["result"]
    assert view["status"] == "completed" and not result["offline"] and result["text"]
    assert result["targetChapterId"] == before[1]["chapterId"]
    assert (result["targetChapterPosition"], result["targetChapterTitle"]) == (2, "码头")
    assert await chapters(simulated, project) == before, "a proposal: the project is unchanged"
    writer_calls = [c for c in simulator.log if before[1]["content"] in prompt_of(c) and REVISE in prompt_of(c)]
    assert writer_calls, "the writer read chapter 2"
    seen = len(simulator.log)

    events, view = await chat(simulated, project, FOLLOW_UP)

    result = view["state"]["result"]
    assert view["state"]["intent"]["intent"] == "REVISE_CHAPTER" and events[-1].event == "done"
    assert result["targetChapterId"] == before[1]["chapterId"] and result["text"]
    follow_ups = [c for c in simulator.log[seen:] if FOLLOW_UP in prompt_of(c)]
    assert any(REVISE in prompt_of(c) for c in follow_ups), "the previous turn is in the follow-up's prompt"
    turns = (await simulated.http.get(f"/v1/writing/projects/{project}/sessions/{SESSION}/turns")).json()["turns"]
    assert [(t["text"], t["intent"], t["targetChapterPosition"]) for t in turns] == [
        (REVISE, "REVISE_CHAPTER", 2),
        (FOLLOW_UP, "REVISE_CHAPTER", 2),
    ]
    assert await chapters(simulated, project) == before

    chapter_url = f"/v1/writing/projects/{project}/chapters/{before[1]['chapterId']}"
    applied = await simulated.http.post(f"{chapter_url}/apply", json={"runId": view["runId"]})
    assert applied.status_code == 200, applied.text
    assert (applied.json()["version"], applied.json()["content"]) == (2, result["text"])
    versions = (await simulated.http.get(f"{chapter_url}/versions")).json()
    assert [(v["number"], v["source"], v["runId"]) for v in versions] == [
        (2, "revision", view["runId"]),
        (1, "manual", None),
    ]
    restored = await simulated.http.post(f"{chapter_url}/versions/1/restore")
    assert restored.status_code == 200, restored.text
    assert (restored.json()["version"], restored.json()["content"]) == (3, before[1]["content"])


async def test_offline_a_revision_says_it_is_a_placeholder_and_a_follow_up_keeps_its_chapter(
    gateway: Gateway,
) -> None:
    project, before = await three_chapters(gateway)

    _, first = await chat(gateway, project, REVISE)
    _, second = await chat(gateway, project, FOLLOW_UP)

    for view in (first, second):
        result = view["state"]["result"]
        assert result["offline"] and "离线占位" in result["text"] and before[1]["content"] in result["text"]
        assert result["targetChapterId"] == before[1]["chapterId"]
    assert await chapters(gateway, project) == before
    chapter_url = f"/v1/writing/projects/{project}/chapters/{before[1]['chapterId']}"
    applied = await gateway.http.post(f"{chapter_url}/apply", json={"runId": first["runId"]})
    assert applied.status_code == 409 and applied.json()["error"]["code"] == "DRAFT_IS_PLACEHOLDER", applied.text
    own = await gateway.http.post(f"{chapter_url}/apply", json={"runId": first["runId"], "text": "林舟没有等到天亮。"})
    assert own.status_code == 200 and own.json()["content"] == "林舟没有等到天亮。", own.text


async def test_a_revision_of_a_chapter_that_does_not_exist_is_a_chapter_not_found_error(gateway: Gateway) -> None:
    project, before = await three_chapters(gateway)

    events, view = await chat(gateway, project, "改写第五章，让节奏更紧凑")

    errors = [e.data["data"] for e in events if e.event == "error"]
    assert events[-1].data["data"]["status"] == "failed" and [e["code"] for e in errors] == ["CHAPTER_NOT_FOUND"]
    assert "第5章不存在" in errors[0]["message"] and view["state"]["result"] is None
    assert await chapters(gateway, project) == before
    turns = (await gateway.http.get(f"/v1/writing/projects/{project}/sessions/{SESSION}/turns")).json()["turns"]
    assert turns == [], "a failed run leaves no turn"


async def test_the_turns_of_a_session_id_that_is_not_a_session_id_are_422(gateway: Gateway) -> None:
    project, _ = await three_chapters(gateway)

    response = await gateway.http.get(f"/v1/writing/projects/{project}/sessions/no%20spaces/turns")

    assert response.status_code == 422


async def test_on_the_model_path_a_chapter_that_does_not_exist_is_one_error_and_no_degraded_answer(
    simulated: Gateway,
) -> None:
    project, before = await three_chapters(simulated)

    events, view = await chat(simulated, project, "Rewrite chapter 7 with a tighter pace")

    errors = [e.data["data"]["code"] for e in events if e.event == "error"]
    assert errors == ["CHAPTER_NOT_FOUND"] and view["state"]["result"] is None
    assert await chapters(simulated, project) == before
