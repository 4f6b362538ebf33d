"""Issue 28 item 7 over the gateway, offline: the offline writer's draft is an honest placeholder. It follows the
request's language, is set in the project's own places with its own people, keeps to the story's register (no sword
in a modern detective story), has nothing but its label line above the scene, changes with the request, and says
what it is (its label, `offline: true` on its `content` events)."""

import re

from tests.api.conftest import Gateway
from tests.sse import SseEvent, parse_sse

_CJK = re.compile(r"[\u4e00-\u9fff]")


async def _project(gateway: Gateway, name: str, chapter: tuple[str, str], characters: list[tuple[str, str]]) -> str:
    http = gateway.http
    project: str = (await http.post("/v1/writing/projects", json={"name": name})).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    await http.post(f"{base}/chapters", json={"title": chapter[0], "content": chapter[1]})
    for character, description in characters:
        await http.post(f"{base}/characters", json={"name": character, "description": description})
    return project


async def _draft(gateway: Gateway, project: str, text: str) -> tuple[str, list[SseEvent]]:
    response = await gateway.http.post(f"/v1/writing/projects/{project}/chat", json={"text": text})
    events = parse_sse(response.text)
    content = [event.data["data"] for event in events if event.event == "content"]
    assert content and all(chunk["offline"] is True for chunk in content), "every offline piece says so"
    return "".join(chunk["text"] for chunk in content), events


async def test_item_7_an_english_request_gets_an_english_placeholder_draft(gateway: Gateway) -> None:
    project = await _project(
        gateway,
        "Low Tide",
        ("Harbor", "Mara Vell walked into Greyhaven Docks after midnight. Tom Reyes was already waiting there."),
        [("Mara", "a retired detective"), ("Tom", "a reporter, her partner")],
    )

    draft, _ = await _draft(gateway, project, "Write a scene where Mara and Tom meet again at night")

    assert draft.startswith("[Offline placeholder draft"), draft[:80]
    assert not _CJK.search(draft), "an English request gets an English draft"
    assert "Mara" in draft and "Tom" in draft and "Greyhaven Docks" in draft
    assert "Mara and Tom meet again at night" in draft, "the draft says what its request asked for"


async def test_item_7_the_draft_uses_the_projects_places_and_changes_with_the_request(gateway: Gateway) -> None:
    project = await _project(
        gateway,
        "雾港",
        ("雨夜", "林舟推开警局的门，雨水顺着帽檐滴落。苏念在档案室等他。三年前，老陈死在雾港码头。"),
        [("林舟", "退役侦探，住在雾港"), ("苏念", "调查记者")],
    )
    note = {"title": "雾港", "content": "雾港是一座海边小城，码头边停着走私船。"}
    assert (await gateway.http.post(f"/v1/writing/projects/{project}/world-notes", json=note)).status_code == 201

    first, _ = await _draft(gateway, project, "写一段林舟和苏念在雨夜重逢的场景")
    second, _ = await _draft(gateway, project, "写一段林舟独自追查走私船的场景")

    for draft in (first, second):
        assert draft.startswith("【离线占位草稿·未接入大模型】")
        assert "城外" not in draft, "no place is made up when the project has its own"
        assert any(place in draft for place in ("雾港", "警局", "档案室", "码头")), draft
        assert "林舟" in draft
    assert "雨夜重逢" in first and "追查走私船" in second, "each draft says what its request asked for"
    body = [set(draft.split("\n\n")[1:]) for draft in (first, second)]
    assert len(body[0] & body[1]) <= len(body[0]) // 3, "another request gets another draft, not the same paragraphs"


async def test_item_7_a_modern_detective_story_gets_a_modern_scene_and_nothing_above_it_but_the_label(
    gateway: Gateway,
) -> None:
    project = await _project(
        gateway,
        "雾港疑案",
        ("审讯", "林舟把手机扣在警局的桌上。周启坐在对面，一句话也不说。窗外，出租车的灯光一闪而过。"),
        [("林舟", "刑警，住在雾港的老公寓"), ("周启", "嫌疑人，码头仓库的老板")],
    )

    for request in ("写一段林舟审问周启的场景，要有动作", "写林舟在雨夜追查周启", "续写下一段，林舟和周启再次交锋"):
        draft, _ = await _draft(gateway, project, request)

        label, body = draft.split("\n\n", 1)
        assert label.startswith("【离线占位草稿·未接入大模型】") and "\n" not in label, "only the label above the scene"
        assert not [w for w in ("接续：", "出场：", "文风参照：", "这一场写的是") if w in draft], draft
        assert not [w for w in ("剑", "马蹄", "衣襟", "墙头", "灯笼", "酒旗") if w in body], body
        assert "林舟" in body and "周启" in body
