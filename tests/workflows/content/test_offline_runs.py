"""Whole content runs with no LLM configured: the offline Supervisor and agents make a post with text and
generated images from the topic; every agent writes only its own fields; reference images are measured and
steer the images' style; a clarification is asked, answered, capped, or left to expire."""

from datetime import timedelta

from temporalio.client import WorkflowHandle

from imaging.measurements import measure_image, nearest_style
from imaging.rendering import decode_image
from models.blobs import key_of
from models.content.agents import OWNED_FIELDS, AgentName
from models.content.state import SEED_FIELDS, ContentState
from models.human_input import AwaitingInput, InputAnswer
from tests.workflows.content.harness import ContentHarness
from workflows.common.human_input import AWAITING_QUERY, INPUT_UPDATE
from workflows.content.workflow import ContentSupervisorWorkflow

TOPIC = "打工人的咖啡续命指南"


async def test_an_offline_run_makes_a_post_with_text_and_generated_images(content: ContentHarness) -> None:
    outcome = await content.run(TOPIC)

    assert outcome.result.status == "completed"
    assert outcome.state.metadata.end_reason == "approved"
    post = outcome.result.post
    assert post is not None and post.complete and post.approved
    texts = [section.text for section in post.sections if section.kind == "text"]
    assert texts and all(texts)
    assert "67%" in outcome.state.generated_content.body if outcome.state.generated_content else False
    assert len(post.image_urls) == len(outcome.state.image_plans) >= 2
    for url in post.image_urls:
        key = key_of(url)
        assert key is not None
        image = decode_image(content.blobs.get(key))
        assert image.format == "PNG"
    assert outcome.types[-2:] == ["post_ready", "done"]
    assert all(event.data["offline"] for event in outcome.of_type("agent_finished"))


async def test_the_state_has_the_seeds_twenty_fields_and_keeps_large_parts_by_reference(
    content: ContentHarness,
) -> None:
    outcome = await content.run(TOPIC)

    dumped = outcome.state.model_dump(by_alias=True)
    camel = {"".join(w.capitalize() if i else w for i, w in enumerate(name.split("_"))) for name in SEED_FIELDS}
    assert camel <= set(dumped)
    assert len(SEED_FIELDS) == 20
    pack = outcome.state.evidence_pack
    assert pack is not None and pack.ref.startswith("blob:evidence/") and pack.count >= 3
    assert all(ref.startswith("blob:images/") for ref in outcome.state.generated_image_asset_ids.values())
    history = await outcome.handle.fetch_history()
    assert len(history.to_json()) < 400_000, "no image bytes or evidence lists in history"


async def test_every_agent_writes_only_its_own_fields(content: ContentHarness) -> None:
    outcome = await content.run(TOPIC, references=[content.reference("水彩 花园")])

    writes = outcome.state.metadata.field_writes
    assert {write.node for write in writes} == {agent.value for agent in AgentName}
    for write in writes:
        assert set(write.fields) <= OWNED_FIELDS[AgentName(write.node)], write
    assert all(write.fields for write in writes), "every agent wrote its fields in a first pass"


async def test_reference_images_are_measured_and_steer_the_images_style(content: ContentHarness) -> None:
    reference = content.reference("赛博朋克 霓虹 城市夜景")

    outcome = await content.run(TOPIC, references=[reference])

    analysis = outcome.state.reference_analyses[0]
    measured = measure_image(content.blobs.get(key_of(reference) or ""))
    assert analysis.palette == measured.palette and analysis.brightness == measured.brightness
    assert analysis.brightness < 0.5 and analysis.description
    assert all(plan.style == "cyberpunk" for plan in outcome.state.image_plans)
    image = content.blobs.get(key_of(next(iter(outcome.state.generated_image_asset_ids.values()))) or "")
    assert nearest_style(measure_image(image).palette)[0] == "cyberpunk"
    assert outcome.state.quality_scores is not None and outcome.state.quality_scores.style_consistency >= 0.6


async def waiting(handle: WorkflowHandle[ContentSupervisorWorkflow, object]) -> AwaitingInput:
    for _ in range(200):
        asked = await handle.query(AWAITING_QUERY)
        if asked:
            return AwaitingInput.model_validate(asked)
        state: ContentState = await handle.query(ContentSupervisorWorkflow.state)
        assert state.metadata.current_node != "done", "the run ended without asking"
    raise AssertionError("the run never asked")


async def test_the_brief_asks_for_the_platform_and_the_answer_shapes_the_post(content: ContentHarness) -> None:
    handle = await content.start(TOPIC, platform=None)

    asked = await waiting(handle)
    assert [option.id for option in asked.options] == ["xiaohongshu", "weibo", "wechat", "douyin"]
    await handle.execute_update(INPUT_UPDATE, InputAnswer(answer="wechat"))
    outcome = await content.finish(handle)

    assert outcome.state.creative_brief is not None and outcome.state.creative_brief.platform == "wechat"
    assert outcome.state.clarification_rounds == 1
    assert outcome.state.agent_clarification_keys == ["brief.platform"]
    assert outcome.path[:4] == ["supervisor", "brief_compiler_agent", "clarification", "brief_compiler_agent"]
    assert outcome.types.count("user_input_required") == 1 and "user_input_received" in outcome.types
    assert any(message.role == "clarification" for message in outcome.state.messages)
    assert outcome.result.post is not None and not outcome.result.post.hashtags, "WeChat posts carry no hashtags"


async def test_with_no_clarification_rounds_left_the_brief_assumes(content: ContentHarness) -> None:
    outcome = await content.run(TOPIC, platform=None, max_clarifications=0)

    assert "user_input_required" not in outcome.types
    brief = outcome.state.creative_brief
    assert brief is not None and brief.platform == "xiaohongshu" and brief.assumptions
    assert outcome.state.clarification_rounds == 0
    assert outcome.result.status == "completed"


async def test_an_unanswered_clarification_ends_the_run_with_what_exists(content: ContentHarness) -> None:
    handle = await content.start(TOPIC, platform=None, input_timeout_seconds=3600)
    await waiting(handle)
    await content.env.sleep(timedelta(hours=1, seconds=1))

    outcome = await content.finish(handle)

    assert outcome.result.status == "failed", "a run that ends with no post is no success"
    assert outcome.state.metadata.end_reason == "clarification_expired"
    assert "user_input_expired" in outcome.types
    post = outcome.of_type("post_ready")[0].data
    assert post["complete"] is False and "无人回答" in post["endMessage"]
    assert outcome.path[-3:] == ["clarification", "finalize", "done"]
    error = outcome.of_type("error")[-1].data
    assert error["code"] == "POST_EMPTY" and "无人回答" in error["message"]
