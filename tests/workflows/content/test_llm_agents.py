"""The content agents on the LLM path, scripted (the loopback server answers in the OpenAI Chat wire format):
what each agent is sent, and what an answer it cannot use leads to."""

import json

from models.human_input import InputAnswer
from tests.llm.answers import chat_completion
from tests.llm.loopback import Loopback
from tests.workflows.content.harness import ContentHarness
from tests.workflows.content.scripts import REFUSED, decide
from tests.workflows.content.test_offline_runs import waiting
from workflows.common.human_input import INPUT_UPDATE

TOPIC = "打工人的咖啡续命指南"
BRIEF = {
    "topic": TOPIC,
    "platform": "xiaohongshu",
    "audience": "上班族",
    "tone": "轻松",
    "keyMessages": ["每天不超过 400 毫克咖啡因"],
}
QUESTION = {"question": "发在哪个平台？", "options": [{"id": "xhs", "label": "小红书"}, {"id": "wb", "label": "微博"}]}


def user_text(loopback: Loopback, index: int) -> str:
    """The text of the user messages of the `index`th request."""
    messages = loopback.requests[index].json()["messages"]
    return "\n".join(str(m["content"]) for m in messages if m["role"] == "user")


async def test_the_answer_to_a_clarification_reaches_the_brief_as_its_label(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(decide("brief_compiler_agent"), chat_completion({"clarification": QUESTION}))
    loopback.queue(chat_completion({"brief": BRIEF}))
    handle = await scripted.start(TOPIC, platform=None, max_iterations=1)

    asked = await waiting(handle)
    await handle.execute_update(INPUT_UPDATE, InputAnswer(answer="xhs", question_id=asked.question_id))
    outcome = await scripted.finish(handle)

    assert [option.id for option in asked.options] == ["xhs", "wb"]
    assert "用户对“发在哪个平台？”的回答：小红书" in user_text(loopback, 2)
    assert outcome.state.creative_brief is not None and outcome.state.creative_brief.platform == "xiaohongshu"


async def test_an_empty_brief_goes_back_to_the_model_with_the_reason(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(decide("brief_compiler_agent"), chat_completion({}), chat_completion({"brief": BRIEF}))

    outcome = await scripted.run(TOPIC, max_iterations=1)

    assert outcome.state.creative_brief is not None and outcome.state.creative_brief.audience == "上班族"
    repair = loopback.requests[2].json()["messages"]
    assert repair[-2]["role"] == "assistant" and json.loads(repair[-2]["content"]) == {}
    assert "brief" in repair[-1]["content"]
    assert "brief_compiler_agent" not in outcome.state.metadata.degraded


async def test_research_findings_that_do_not_validate_get_a_repair_round(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    findings = {
        "items": [{"claim": "67% 的上班族每天喝至少一杯咖啡", "source": "note-1", "kind": "statistic"}],
        "bodyBlocks": [{"id": "b1", "heading": "数据", "points": ["67% 的上班族每天喝咖啡"]}],
        "summary": "一条证据",
    }
    loopback.queue(decide("research_evidence_agent"), chat_completion("调研完成，证据见上。"))
    loopback.queue(chat_completion(findings))

    outcome = await scripted.run(TOPIC, max_iterations=1)

    assert "research_evidence_agent" not in outcome.state.metadata.degraded
    assert outcome.state.evidence_pack is not None and outcome.state.evidence_pack.count == 1
    repair = loopback.requests[2].json()["messages"]
    assert repair[-2] == {"role": "assistant", "content": "调研完成，证据见上。"}
    assert "not valid" in repair[-1]["content"]


async def test_the_supervisor_reads_the_run_s_latest_messages(scripted: ContentHarness, loopback: Loopback) -> None:
    loopback.queue(decide("layout_planner_agent", "先定版式"), REFUSED, decide("brief_compiler_agent"), REFUSED)

    await scripted.run(TOPIC, max_iterations=2)

    second = user_text(loopback, 2)
    assert "最近的对话：" in second and f"[user:user] {TOPIC}" in second
    assert "[supervisor:supervisor] next_agent=layout_planner_agent → layout_planner_agent" in second


async def test_the_platform_the_user_chose_stands_whatever_the_brief_says(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(decide("brief_compiler_agent"), chat_completion({"brief": BRIEF | {"platform": "douyin"}}))

    outcome = await scripted.run(TOPIC, platform="xiaohongshu", max_iterations=1)

    assert outcome.state.creative_brief is not None and outcome.state.creative_brief.platform == "xiaohongshu"


async def test_the_users_tone_stands_and_the_model_is_told_the_tone_and_length(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(decide("brief_compiler_agent"), chat_completion({"brief": BRIEF}))

    outcome = await scripted.run(TOPIC, tone="轻松幽默", length="short", max_iterations=1)

    assert outcome.state.creative_brief is not None and outcome.state.creative_brief.tone == "轻松幽默"
    asked = user_text(loopback, 1)
    assert "用户要求的语气：轻松幽默" in asked and "用户要求的篇幅：短，正文 150–433 字" in asked
