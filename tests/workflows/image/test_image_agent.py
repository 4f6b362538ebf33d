"""ImageAgentWorkflow on the time-skipping server: the happy paths and every row of seed 004 §8."""

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.contrib.pydantic import pydantic_data_converter

from imaging.rendering import decode_image
from models.events import RunEvent
from tests.workflows.harness import assert_declared
from tests.workflows.image.harness import Harness
from workflows.common.event_log import EVENTS_MEMO
from workflows.image.graph import GRAPH


async def test_cyberpunk_cat_runs_every_node_and_ends_with_a_canvas(harness: Harness) -> None:
    outcome = await harness.run("生成一只赛博朋克风格的猫")

    assert outcome.path == ["validate_input", "planner", "rag", "executor", "critic", "genui", "stream_end"]
    assert_declared(GRAPH, outcome.state.metadata.transitions)
    thought_nodes = {e.node for e in outcome.of_type("thought_log")}
    assert {"planner", "rag", "executor", "critic"} <= thought_nodes
    intent = outcome.state.intent
    assert intent is not None and intent.action == "generate_image"
    assert intent.style == "赛博朋克" and intent.subject == "猫"
    enhanced = outcome.state.enhanced_prompt
    assert enhanced is not None and enhanced.retrieved and enhanced.final.startswith(enhanced.original)
    canvas = [e for e in outcome.of_type("gen_ui_component") if e.data["widgetType"] == "SmartCanvas"]
    assert canvas and canvas[-1].node == "executor"
    result = outcome.state.execution_result
    assert result is not None and canvas[-1].data["props"]["imageUrl"] == result.image_url
    assert decode_image(harness.blobs.get(result.blob_key)).size == (800, 600)
    assert outcome.events[-1].type == "stream_end" and outcome.events[-1].data["status"] == "completed"
    assert [e.seq for e in outcome.events] == list(range(len(outcome.events)))


async def test_without_a_style_the_planner_goes_straight_to_the_executor(harness: Harness) -> None:
    outcome = await harness.run("画一只猫")

    assert outcome.path[:3] == ["validate_input", "planner", "executor"]
    assert "rag" not in outcome.path
    assert_declared(GRAPH, outcome.state.metadata.transitions)
    assert outcome.state.enhanced_prompt is None


async def test_validation_failure_goes_to_the_error_handler(harness: Harness) -> None:
    outcome = await harness.run("   ")

    assert outcome.path == ["validate_input", "error_handler", "stream_end"]
    assert_declared(GRAPH, outcome.state.metadata.transitions)
    assert outcome.error_code == "INVALID_INPUT_EMPTY"
    assert outcome.of_type("error")[0].node == "error_handler"
    assert outcome.events[-1].type == "stream_end" and outcome.events[-1].data["status"] == "failed"


@pytest.mark.parametrize("text", ["😀😀😀", "asdfghjkl", "xjqpz kvwrt"])
async def test_unknown_intent_ends_with_a_friendly_message(harness: Harness, text: str) -> None:
    outcome = await harness.run(text)

    assert outcome.path == ["validate_input", "planner", "error_handler", "stream_end"]
    assert outcome.error_code == "INTENT_UNKNOWN"
    message = [e for e in outcome.of_type("gen_ui_component") if e.data["widgetType"] == "AgentMessage"]
    assert message and "生成一只赛博朋克风格的猫" in message[-1].data["props"]["text"]


async def test_edit_here_without_a_mask_asks_for_one(harness: Harness) -> None:
    outcome = await harness.run("修改这里")

    assert outcome.state.intent is not None and outcome.state.intent.action == "inpainting"
    assert outcome.error_code == "MASK_REQUIRED"
    assert outcome.path[-2:] == ["error_handler", "stream_end"]


async def test_adjusting_with_no_previous_image_says_so(harness: Harness) -> None:
    outcome = await harness.run("再调整一下，大一点")

    assert outcome.error_code == "NO_PREVIOUS_IMAGE"


async def test_a_long_text_is_truncated_and_the_user_is_told(harness: Harness) -> None:
    outcome = await harness.run("生成一只猫" + "很可爱" * 400)

    assert len(outcome.state.user_input.text) == 1000
    warnings = [e for e in outcome.of_type("thought_log") if e.data.get("code") == "INPUT_TRUNCATED"]
    assert warnings and warnings[0].node == "validate_input"
    assert outcome.path[-2:] == ["genui", "stream_end"]


async def test_the_same_prompt_gives_the_same_image(harness: Harness) -> None:
    first = await harness.run("生成一只水彩风格的狐狸")
    second = await harness.run("生成一只水彩风格的狐狸")

    assert first.state.execution_result is not None and second.state.execution_result is not None
    assert first.state.execution_result.blob_key == second.state.execution_result.blob_key


async def test_every_event_is_published_in_history_before_the_run_waits_on_the_executor(harness: Harness) -> None:
    outcome = await harness.run("生成一只赛博朋克风格的猫")

    published: list[RunEvent] = []
    executor_scheduled_after = None
    async for change in outcome.handle.fetch_history_events():
        if change.event_type == EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
            memo = change.workflow_properties_modified_event_attributes.upserted_memo.fields[EVENTS_MEMO]
            published += pydantic_data_converter.payload_converter.from_payload(memo, list[RunEvent])
        elif change.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED and executor_scheduled_after is None:
            executor_scheduled_after = len(published)

    assert published == outcome.events  # all of them, in order, each once
    assert executor_scheduled_after is not None
    before_executor = {e.node for e in published[:executor_scheduled_after]}
    assert {"planner", "rag"} <= before_executor and published[executor_scheduled_after - 1].type == "progress"
