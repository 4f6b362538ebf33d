"""Seed 002 rows the issue-28 table found missing, over the gateway (offline): every post-processing step ends with
its `check_result` (Req 9.5)."""

from tests.api.conftest import Gateway
from tests.api.writing.test_chat import sample_project
from tests.sse import parse_sse


async def test_req_9_5_every_post_processing_step_emits_its_check_result(gateway: Gateway) -> None:
    project = await sample_project(gateway)
    chat = f"/v1/writing/projects/{project}/chat"
    requests = {
        "consistency": "写一段林舟和苏念在码头的场景",
        "relationships": "设计一个新角色：林舟的宿敌",
        "knowledge": "设计这个城市的世界观：雾港的黑市规矩",
    }

    for check, text in requests.items():
        events = parse_sse((await gateway.http.post(chat, json={"text": text})).text)
        types = [event.event for event in events]
        results = [event.data["data"] for event in events if event.event == "check_result"]
        assert [result["check"] for result in results] == [check], (text, types)
        assert types.index("processing_check") < types.index("check_result") < types.index("done")
        assert results[0]["passed"] is True and results[0]["message"]
