"""The offline outline over the gateway: its sections are about the project's own living people (the most
mentioned first; the dead are not on stage) and places, in Chinese and in English, and "主人公" / "the
protagonist" only for a project with no characters; its line on the plot loop it plants says what filing it
found: new, already proposed and waiting for the writer, or already in the project."""

from typing import Any

from tests.api.conftest import ALICE, Gateway
from tests.sse import parse_sse

STORY = "老陈在码头等林舟。老陈说账本不见了。老陈倒在码头，死了。苏念赶到码头时，林舟站在雨里。"


async def _project(gateway: Gateway, chapter: str, people: list[tuple[str, str]]) -> str:
    """Alice's project with one chapter and `people` (name, description); its base path."""
    http = gateway.http
    project = (await http.post("/v1/writing/projects", json={"name": "长夜"}, headers=ALICE)).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    created = await http.post(f"{base}/chapters", json={"title": "雨夜", "content": chapter}, headers=ALICE)
    assert created.status_code == 201, created.text
    for name, description in people:
        added = await http.post(f"{base}/characters", json={"name": name, "description": description}, headers=ALICE)
        assert added.status_code == 201, added.text
    return base


async def _outline(gateway: Gateway, base: str, text: str) -> tuple[str, dict[str, Any]]:
    """The outline's text and its structure update."""
    response = await gateway.http.post(f"{base}/chat", json={"text": text}, headers=ALICE)
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    content = "".join(e.data["data"]["text"] for e in events if e.event == "content")
    return content, next(e.data["data"] for e in events if e.event == "structure_update")


async def test_the_offline_outline_is_about_the_project_s_living_people_and_places(keyed: Gateway) -> None:
    base = await _project(keyed, STORY, [("林舟", "主角，刑警"), ("苏念", "记者"), ("老陈", "线人")])

    text, structure = await _outline(keyed, base, "帮我规划接下来三章的大纲")

    summaries = " ".join(s["summary"] for s in structure["sections"])
    assert "主人公" not in text and "林舟" in summaries and "苏念" in summaries, text
    (remembered,) = [s["summary"] for s in structure["sections"] if "老陈" in s["summary"]]
    assert "与老陈之死有关的旧线索" in remembered, "the dead are remembered, not on stage"
    assert "码头" in text, text
    (planted,) = structure["proposedPlotLoops"]
    assert planted["title"] == "林舟隐瞒的事" and f"新伏笔（待作者确认）：「{planted['title']}」" in text


async def test_the_english_offline_outline_is_about_the_project_s_people(keyed: Gateway) -> None:
    story = "Mara Vell walked into Greyhaven Docks after midnight. Tom Reyes was already waiting there for Mara."
    base = await _project(keyed, story, [("Mara", "a retired detective"), ("Tom", "a reporter")])

    text, structure = await _outline(keyed, base, "Outline the next three chapters")

    assert "the protagonist" not in text and "Mara" in structure["sections"][0]["summary"], text
    assert "Greyhaven Docks" in text, text
    assert structure["proposedPlotLoops"][0]["title"] == "What Mara is hiding"


async def test_a_project_without_characters_still_has_a_protagonist(keyed: Gateway) -> None:
    base = await _project(keyed, "雨下了一夜。", [])

    text, _ = await _outline(keyed, base, "帮我规划接下来三章的大纲")

    assert "主人公" in text, text


async def test_the_outline_says_when_its_plot_loop_was_proposed_before_or_is_in_the_project(keyed: Gateway) -> None:
    http = keyed.http
    base = await _project(keyed, STORY, [("林舟", "主角，刑警"), ("苏念", "记者")])
    _, first = await _outline(keyed, base, "帮我规划接下来三章的大纲")
    (planted,) = first["proposedPlotLoops"]

    pending_text, pending = await _outline(keyed, base, "帮我规划接下来三章的大纲")

    assert pending["proposedPlotLoops"][0]["existingId"] == planted["proposalId"]
    assert "新伏笔（待作者确认）" not in pending_text
    assert f"伏笔「{planted['title']}」已经提出过，正等作者确认，这次不再重复提出。" in pending_text

    accepted = await http.post(f"{base}/proposals/{planted['proposalId']}/accept", headers=ALICE)
    assert accepted.status_code == 200, accepted.text
    known_text, known = await _outline(keyed, base, "帮我规划接下来三章的大纲")

    assert known["proposedPlotLoops"][0]["existingId"] == accepted.json()["itemId"]
    assert "新伏笔（待作者确认）" not in known_text
    assert f"伏笔「{planted['title']}」项目里已有，这次不再重复提出。" in known_text
    assert f"推进伏笔「{planted['title']}」" in known_text and "埋下新伏笔" not in known_text, "planted already"


async def test_the_english_outline_says_its_plot_loop_waits_for_the_writer(keyed: Gateway) -> None:
    base = await _project(keyed, "Mara Vell walked into Greyhaven Docks.", [("Mara", "a retired detective")])
    await _outline(keyed, base, "Outline the next three chapters")

    text, _ = await _outline(keyed, base, "Outline the next three chapters")

    assert "New plot loop" not in text
    assert 'Plot loop "What Mara is hiding" is already proposed and waits for the writer' in text, text
