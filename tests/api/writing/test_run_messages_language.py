"""Issue 28 item 7, the run's own messages: offline, over the gateway, an English request's whole event stream is
English (its preprocessing and skill thoughts, `processing_check`, `check_result`, `relationship_update`,
`knowledge_update`, the consistency findings and an `error` like CHAPTER_NOT_FOUND), in a project with English
names, so no Chinese character may appear at all; a Chinese request's messages are unchanged."""

import re

import pytest

from tests.api.conftest import Gateway
from tests.api.writing.test_offline_languages import _english_project
from tests.sse import SseEvent, parse_sse

_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
"""Chinese characters and the full-width punctuation (：，「) that goes with them."""

REQUESTS = [
    ("design", "Design a new villain who haunts the docks", "relationship_update"),
    ("world", "Describe the factions and geography of this world", "knowledge_update"),
    ("chat", "hello", "content"),
    ("write", "Write the next chapter where Mara finds the ledger", "check_result"),
    ("revise", "rewrite chapter 2", "check_result"),
    ("revise a chapter that does not exist", "rewrite chapter 5", "error"),
    ("consistency check", "Check the chapters for contradictions", "issue_report"),
    ("outline", "Outline the next three chapters", "content"),
]


async def _events(gateway: Gateway, project: str, text: str) -> list[SseEvent]:
    response = await gateway.http.post(f"/v1/writing/projects/{project}/chat", json={"text": text})
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


@pytest.mark.parametrize(("kind", "text", "event"), REQUESTS, ids=[kind for kind, _, _ in REQUESTS])
async def test_an_english_requests_whole_stream_is_english(gateway: Gateway, kind: str, text: str, event: str) -> None:
    project = await _english_project(gateway)

    events = await _events(gateway, project, text)

    assert event in [e.event for e in events], f"the {kind} stream shows its {event}"
    chinese = [f"{e.event}: {e.data['data']}" for e in events if _CJK.search(str(e.data["data"]))]
    assert not chinese, "\n".join(chinese)


async def test_an_english_revision_of_a_missing_chapter_says_so_in_english(gateway: Gateway) -> None:
    project = await _english_project(gateway)

    events = await _events(gateway, project, "rewrite chapter 5")

    error = next(e.data["data"] for e in events if e.event == "error")
    assert error["code"] == "CHAPTER_NOT_FOUND"
    assert error["message"] == "Chapter 5 does not exist: the project has 2 chapters"


async def test_a_chinese_requests_messages_are_unchanged(gateway: Gateway) -> None:
    http = gateway.http
    project = (await http.post("/v1/writing/projects", json={"name": "雾港"})).json()["projectId"]
    base = f"/v1/writing/projects/{project}"
    await http.post(f"{base}/chapters", json={"title": "雨夜", "content": "林舟推开警局的门。苏念在档案室等他。"})
    await http.post(f"{base}/characters", json={"name": "林舟", "description": "退役侦探"})

    written = await _events(gateway, project, "续写下一章，林舟找到账簿")
    missing = await _events(gateway, project, "改写第五章")

    messages = {e.event: e.data["data"].get("message") for e in written}
    assert messages["workflow_preprocessing"] == "并行预处理：rag、character_states、style_samples（3 个任务同时开始）"
    assert messages["processing_check"] == "正在进行一致性检查（人物状态、人名、设定）..."
    assert messages["check_result"].startswith("检查了 1 个角色、1 章：")
    assert next(e.data["data"]["message"] for e in missing if e.event == "error") == "第5章不存在：项目现有 1 章"
