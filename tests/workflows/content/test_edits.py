"""An edit's section rewrite on the LLM path, scripted (the loopback server answers in the OpenAI Chat wire format):
what the writer's model is sent and how its answer becomes the section and the body, and the review's model
reviews the new version; a model whose answers stay invalid degrades to the offline rewrite, and the run says so."""

from datetime import UTC, datetime

from models.content.artifacts import ContentBlock, GeneratedContent, QualityDimension
from models.content.edits import ContentEditInput, ContentEditState, EditRecord, PostEdit
from models.content.state import ContentMetadata, ContentState
from tests.llm.answers import chat_completion
from tests.llm.loopback import Loopback
from tests.workflows.content.harness import ContentHarness
from tests.workflows.content.scripts import GOOD_SCORES, low, review
from tests.workflows.harness import assert_declared
from workflows.content.edit import ContentEditWorkflow
from workflows.content.edit_graph import EDIT_GRAPH

FIRST = "咖啡要早点喝。"
SECOND = "因此下午三点以后别再喝咖啡，您的睡眠会感谢您。晚上可以换成热牛奶。"


def base_post() -> ContentState:
    blocks = [ContentBlock(id="b1", heading="开头", text=FIRST), ContentBlock(id="b2", heading="建议", text=SECOND)]
    return ContentState(
        generated_content=GeneratedContent(title="咖啡指南", body=f"{FIRST}\n\n{SECOND}", blocks=blocks),
        max_iterations=20,
        thread_id="content-base",
        creative_id="content-0123456789abcdef",
        metadata=ContentMetadata(current_node="done", start_time=datetime(2026, 1, 1, tzinfo=UTC)),
    )


async def rewrite(harness: ContentHarness, instruction: str) -> tuple[ContentEditState, list[str]]:
    edit = PostEdit(action="rewrite_section", section=2, block_id="b2", instruction=instruction)
    record = EditRecord(version=2, base_run_id="content-base", origin_run_id="content-base", edit=edit)
    run_input = ContentEditInput(
        owner="tester", base=base_post(), record=record, topic="咖啡指南", platform="xiaohongshu", llm_configured=True
    )
    handle = await harness.start_run(ContentEditWorkflow.run, run_input, id_prefix="content-edit")
    await handle.result()
    state: ContentEditState = await handle.query("state", result_type=ContentEditState)
    assert_declared(EDIT_GRAPH, state.metadata.transitions)
    events = await harness.events(handle.id)
    return state, [f"{event.type}:{event.data.get('code', event.data.get('message', ''))}" for event in events]


async def test_the_writers_model_rewrites_the_section_and_the_body_keeps_it(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(
        chat_completion({"text": "下午三点后就别碰咖啡啦，睡得香才是真的香。"}), review(GOOD_SCORES, approved=True)
    )

    state, events = await rewrite(scripted, "更口语一点")

    sent = "\n".join(str(m["content"]) for m in loopback.requests[0].json()["messages"])
    reviewed = "\n".join(str(m["content"]) for m in loopback.requests[1].json()["messages"])
    assert "下午三点后就别碰咖啡啦" in reviewed, "the review reads the new version"
    assert state.review_feedback is not None and state.review_feedback.approved
    assert state.metadata.end_reason == "approved" and "review_result:" in events
    assert SECOND in sent and "更口语一点" in sent and "建议" in sent
    content = state.generated_content
    assert content is not None and content.blocks[1].text == "下午三点后就别碰咖啡啦，睡得香才是真的香。"
    assert content.body == f"{FIRST}\n\n下午三点后就别碰咖啡啦，睡得香才是真的香。"
    assert state.edit.applied and "离线" not in state.edit.change
    assert state.creative_id == "content-0123456789abcdef" and events[-2:] == ["post_ready:", "done:"]


async def test_a_model_whose_answers_stay_invalid_degrades_to_the_offline_rewrite(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(chat_completion({}), chat_completion({}), review(low(QualityDimension.READABILITY), approved=False))

    state, events = await rewrite(scripted, "更口语一点")

    content = state.generated_content
    assert (
        content is not None
        and content.blocks[1].text == "所以下午三点以后别再喝咖啡，你的睡眠会感谢你。晚上可以换成热牛奶。"
    )
    assert "error:AGENT_DEGRADED" in events
    assert state.edit.applied and "离线改写" in state.edit.change
    assert "大模型调用失败" in state.edit.change and "未配置" not in state.edit.change  # a model is configured
    assert state.metadata.end_reason == "edit_not_approved" and state.metadata.end_message == "脚本审核"
