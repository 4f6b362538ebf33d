"""Issue 28 item 7 over the gateway, offline: every offline agent answers a request written in English in English
(its label says it is an offline placeholder, no Chinese in the text), grounded in the project's own people,
places and plot threads; the same requests in Chinese still get Chinese answers. (The brainstorm runs only in its
chain, which pauses for the writer's choice: `test_chain_over_http` has it over a gateway process.)"""

import re

import pytest

from tests.api.conftest import Gateway
from tests.sse import parse_sse

_CJK = re.compile(r"[\u4e00-\u9fff]")
_ENGLISH_LABEL = re.compile(r"^\[Offline [a-z ]+: no language model is connected\]\n")

ENGLISH = [
    ("simple", "hello", ["Mara", "2 chapters"]),
    ("simple", "suggest names for a female smuggler", ["5 names"]),
    ("simple", "title ideas for my book", ["5 titles", "Greyhaven Docks"]),
    ("simple", "summarize chapter 1", ['Chapter 1 "Harbor"', "Greyhaven Docks"]),
    ("simple", "extract the characters and places", ["Mara", "Greyhaven Docks"]),
    ("character", "Design a new villain who haunts the docks", ["Name: ", "Role: antagonist", "→ Mara"]),
    ("world_builder", "Describe the factions and geography of this world", ["Geography", "Saltmere Station"]),
    ("planner", "Outline the next three chapters", ['Chapter 3 "', "the missing ledger"]),
    ("planner", "Which plot threads are still open?", ['"the missing ledger": planted in chapter 2, still open']),
    ("planner", "Is the pacing too slow?", ["Pacing: 2 chapters"]),
    ("consistency", "Check the chapters for contradictions", ["Checked 2 chapters"]),
    ("consistency", "Analyze the writing style of my chapters", ["Average sentence length"]),
]


async def _english_project(gateway: Gateway) -> str:
    http = gateway.http
    project: str = (await http.post("/v1/writing/projects", json={"name": "Low Tide"})).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    chapters = [
        ("Harbor", "Mara Vell walked into Greyhaven Docks after midnight. Tom Reyes was already waiting there."),
        ("Ledger", "The ledger was gone from the archive at Saltmere Station. Mara read the empty shelf twice."),
    ]
    for title, content in chapters:
        assert (await http.post(f"{base}/chapters", json={"title": title, "content": content})).status_code == 201
    for name, description in (("Mara", "a retired detective"), ("Tom", "a reporter, her partner")):
        await http.post(f"{base}/characters", json={"name": name, "description": description})
    loop = {"title": "the missing ledger", "description": "who took it from the archive", "plantedInChapter": 2}
    assert (await http.post(f"{base}/plot-loops", json=loop)).status_code == 201
    return project


async def _answer(gateway: Gateway, project: str, text: str) -> tuple[str, str]:
    """The agent that answered `text` and its answer."""
    response = await gateway.http.post(f"/v1/writing/projects/{project}/chat", json={"text": text})
    events = parse_sse(response.text)
    [started] = [event.data["data"] for event in events if event.event == "agent_started"]
    content = [event.data["data"] for event in events if event.event == "content"]
    assert content and all(chunk["offline"] is True for chunk in content), "every offline piece says so"
    return started["agent"], "".join(chunk["text"] for chunk in content)


@pytest.mark.parametrize(("agent", "text", "grounded"), ENGLISH)
async def test_item_7_every_offline_agent_answers_an_english_request_in_english(
    gateway: Gateway, agent: str, text: str, grounded: list[str]
) -> None:
    project = await _english_project(gateway)

    answered_by, answer = await _answer(gateway, project, text)

    assert answered_by == agent
    assert _ENGLISH_LABEL.match(answer), answer[:80]
    assert not _CJK.search(answer), f"an English request gets an English answer: {answer}"
    assert all(word in answer for word in grounded), answer


async def test_item_7_a_chinese_request_still_gets_a_chinese_answer(gateway: Gateway) -> None:
    http = gateway.http
    project = (await http.post("/v1/writing/projects", json={"name": "雾港"})).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "林舟推开警局的门。苏念在档案室等他。"})
    await http.post(f"{base}/characters", json={"name": "林舟", "description": "退役侦探"})

    for text in ("你好", "帮我设计一个反派", "规划接下来的大纲", "检查一致性"):
        _, answer = await _answer(gateway, project, text)
        assert answer.startswith("【离线") and "未接入大模型】" in answer, answer[:40]
        assert "no language model" not in answer
