"""The image Planner's conversation as the model receives it (over the loopback provider): it starts with the
user and its roles alternate, as every provider requires, whatever the session's history looks like."""

from datetime import UTC, datetime

from temporalio.testing import ActivityEnvironment

from activities.image.planner import Planner
from llm import LLMClient
from models.image.nodes import PlannerRequest
from models.image.state import Message, PreviousResult
from tests.llm.answers import chat_completion
from tests.llm.conftest import llm
from tests.llm.loopback import Loopback

__all__ = ["llm"]
INTENT = {"action": "adjust_parameters", "subject": "猫", "style": "赛博朋克", "confidence": 0.9, "reasoning": "调"}
NOW = datetime(2026, 1, 1, tzinfo=UTC)


async def test_a_session_ending_with_the_assistant_and_a_reference_back_still_alternates(
    llm: LLMClient, loopback: Loopback
) -> None:
    loopback.queue(chat_completion(INTENT))
    history = [
        Message(role="assistant", content="你好，我能帮你画图。", timestamp=NOW),
        Message(role="user", content="画一只赛博朋克风格的猫", timestamp=NOW),
        Message(role="assistant", content="已生成：一只赛博朋克风格的猫", timestamp=NOW),
    ]
    previous = PreviousResult(
        blob_key="images/cat.png", prompt="赛博朋克 猫", width=512, height=512, style_strength=0.7, seed=3
    )
    request = PlannerRequest(text="再调整一下，亮一点", has_mask=False, messages=history, previous=previous)

    await ActivityEnvironment().run(Planner(["赛博朋克"], llm).plan, request)

    sent = [m for m in loopback.requests[0].json()["messages"] if m["role"] != "system"]
    roles = [m["role"] for m in sent]
    assert roles == ["user", "assistant", "user"]
    assert "已生成：一只赛博朋克风格的猫" in sent[1]["content"] and "上一次生成的结果" in sent[1]["content"]
    assert sent[-1]["content"] == "再调整一下，亮一点"
