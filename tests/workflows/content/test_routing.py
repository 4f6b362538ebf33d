"""Seed 001's routing tables, row by row, driven on the time-skipping server with a scripted Supervisor (the
loopback server answers in the OpenAI Chat wire format). Agents the test does not care about are refused, so
their offline versions answer. `maxIterations` keeps each run to the rows under test."""

import json

import pytest

from models.content.agents import END, QUALITY_FALLBACK, AgentName
from models.content.artifacts import QualityDimension
from tests.llm.answers import chat_completion
from tests.llm.loopback import Loopback
from tests.workflows.content.harness import ContentHarness
from tests.workflows.content.scripts import (
    GOOD_SCORES,
    REFUSED,
    decide,
    low,
    no_decision,
    offline_steps,
    review,
    tools,
)

TOPIC = "打工人的咖啡续命指南"


def supervisor_prompts(loopback: Loopback) -> list[str]:
    """The state summaries the Supervisor was sent, in order."""
    prompts = []
    for request in loopback.requests:
        body = request.json()
        if body["messages"][0]["role"] == "system" and "Supervisor" in body["messages"][0]["content"]:
            prompts.append(body["messages"][1]["content"])
    return prompts


# ---- routeFromSupervisor() ----


async def test_an_answer_without_a_decision_gets_a_repair_round_that_says_why(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(no_decision(), decide("brief_compiler_agent"), REFUSED)

    outcome = await scripted.run(TOPIC, max_iterations=1)

    route = outcome.state.metadata.routes[0]
    assert (route.rule, route.routed_to) == ("decision", "brief_compiler_agent")
    repair = loopback.requests[1].json()["messages"]
    assert repair[-2] == {"role": "assistant", "content": "我需要再想一想下一步该做什么。"}
    assert "没有可用的 JSON 决策" in repair[-1]["content"] and "tools" not in loopback.requests[1].json()


async def test_no_decision_after_the_repair_round_sends_the_run_back_to_the_supervisor(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(no_decision(), no_decision(), decide("brief_compiler_agent"), REFUSED)

    outcome = await scripted.run(TOPIC, max_iterations=2)

    first, second = outcome.state.metadata.routes[:2]
    assert (first.rule, first.routed_to, first.decision) == ("no_decision", "supervisor", None)
    assert "修复后仍无法使用" in first.reason
    assert (second.rule, second.routed_to) == ("decision", "brief_compiler_agent")
    assert outcome.path[:3] == ["supervisor", "supervisor", "brief_compiler_agent"]


async def test_an_unknown_agent_counts_as_no_decision(scripted: ContentHarness, loopback: Loopback) -> None:
    loopback.queue(decide("poet_agent"), decide("poet_agent"))

    outcome = await scripted.run(TOPIC, max_iterations=1)

    route = outcome.state.metadata.routes[0]
    assert (route.rule, route.routed_to) == ("no_decision", "supervisor")
    assert "poet_agent" in route.reason


async def test_a_supervisor_that_stays_unreadable_hands_over_to_its_offline_policy_and_says_so(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(*[no_decision()] * 6, REFUSED)  # three turns, each with its repair round; then an agent

    outcome = await scripted.run(TOPIC, max_iterations=4)

    rules = [route.rule for route in outcome.decisions]
    assert rules[:3] == ["no_decision"] * 3 and rules[3] == "decision"
    [degraded] = [e.data for e in outcome.of_type("error") if e.node == "supervisor"]
    assert degraded["code"] == "AGENT_DEGRADED" and "连续 3 次" in degraded["message"]
    assert "修复后仍无法使用" in degraded["message"]
    assert len(loopback.requests) == 7, "after the hand-over the offline policy decides, with no model call"


async def test_end_before_the_post_exists_is_refused(scripted: ContentHarness, loopback: Loopback) -> None:
    loopback.queue(decide(END), decide("brief_compiler_agent"), REFUSED)

    outcome = await scripted.run(TOPIC, max_iterations=2)

    refused = outcome.state.metadata.routes[0]
    assert (refused.rule, refused.routed_to) == ("end_refused", "supervisor")
    assert "正文未完成" in refused.reason and "配图未完成" in refused.reason
    assert outcome.path[:3] == ["supervisor", "supervisor", "brief_compiler_agent"]
    assert outcome.state.metadata.end_reason == "max_iterations"


async def test_end_right_after_a_failed_review_is_refused(scripted: ContentHarness, loopback: Loopback) -> None:
    """The prompt's own rule: after a failed review, END only once a dimension fell back twice."""
    loopback.queue(*offline_steps(6), REFUSED, review(low(QualityDimension.PLATFORM_FIT), approved=False))
    loopback.queue(decide(END, "平台适配差一点，但已可发布"))

    outcome = await scripted.run(TOPIC, max_iterations=8)

    refused = outcome.decisions[-1]
    assert (refused.rule, refused.routed_to) == ("end_refused", "supervisor")
    assert "审核未通过" in refused.reason and "回退过 2 次" in refused.reason
    assert outcome.state.metadata.end_reason == "max_iterations"


async def test_a_decision_with_its_preconditions_is_used_as_is(scripted: ContentHarness, loopback: Loopback) -> None:
    loopback.queue(decide("layout_planner_agent", "先定版式", ["图片位"]), REFUSED)

    outcome = await scripted.run(TOPIC, max_iterations=1)

    route = outcome.state.metadata.routes[0]
    assert (route.rule, route.routed_to) == ("decision", "layout_planner_agent")
    started = outcome.of_type("agent_started")[0].data
    assert started["guidance"] == "先定版式" and started["focusAreas"] == ["图片位"]
    assert outcome.state.metadata.precondition_corrections == {}


# ---- checkBasicPreconditions(): each row ----


@pytest.mark.parametrize(
    ("setup", "decided", "fallback"),
    [
        ([], "writer_agent", "brief_compiler_agent"),
        ([decide("brief_compiler_agent"), REFUSED], "review_agent", "writer_agent"),
        ([], "image_agent", "image_planner_agent"),
    ],
    ids=["writer needs the brief", "review needs the body", "image needs plans"],
)
async def test_a_missing_precondition_is_corrected_to_its_fallback(
    scripted: ContentHarness, loopback: Loopback, setup: list[object], decided: str, fallback: str
) -> None:
    loopback.queue(*setup, decide(decided), REFUSED)  # type: ignore[arg-type]

    outcome = await scripted.run(TOPIC, max_iterations=len(setup) // 2 + 1)

    route = outcome.decisions[-1]
    assert (route.rule, route.routed_to) == ("precondition", fallback)
    assert outcome.path[-4:] == [fallback, "supervisor", "finalize", "done"], "the fallback ran, not the decision"
    assert outcome.state.metadata.precondition_corrections == {decided: 1}
    assert outcome.result.precondition_corrections == {decided: 1}
    corrected = [event.data for event in outcome.of_type("supervisor_decision") if event.data["corrected"]]
    assert [event["decision"]["next_agent"] for event in corrected] == [decided]


async def test_a_fallback_without_its_own_precondition_is_corrected_once_more(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    """review_agent needs the post's text → writer_agent, which needs the brief → brief_compiler_agent."""
    loopback.queue(decide("review_agent"), REFUSED)

    outcome = await scripted.run(TOPIC, max_iterations=1)

    route = outcome.state.metadata.routes[0]
    assert (route.rule, route.routed_to) == ("precondition", "brief_compiler_agent")
    assert "纠正到 writer_agent" in route.reason and "纠正到 brief_compiler_agent" in route.reason
    assert (
        outcome.result.status != "failed" or outcome.state.error is None or outcome.state.error.code != "AGENT_FAILED"
    )


async def test_the_supervisor_is_told_about_its_corrections(scripted: ContentHarness, loopback: Loopback) -> None:
    loopback.queue(decide("writer_agent"), REFUSED, decide("research_evidence_agent"), REFUSED)

    await scripted.run(TOPIC, max_iterations=2)

    assert '"writer_agent": 1' in supervisor_prompts(loopback)[1]


# ---- shouldContinueSupervisor() ----


async def test_supervisor_tool_calls_run_as_activities_before_it_decides(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(
        tools(("call-1", "inspect_artifact", {"name": "brief"}), ("call-2", "inspect_artifact", {"name": "poem"})),
        decide("brief_compiler_agent"),
        REFUSED,
    )

    outcome = await scripted.run(TOPIC, max_iterations=1)

    assert outcome.path[:3] == ["supervisor", "supervisor_tools", "supervisor"]
    results = {event.data["callId"]: event.data for event in outcome.of_type("tool_result")}
    assert not results["call-1"]["isError"] and results["call-2"]["isError"]
    second_turn = loopback.requests[1].json()["messages"]
    tool_messages = [message for message in second_turn if message["role"] == "tool"]
    assert [message["tool_call_id"] for message in tool_messages] == ["call-1", "call-2"]
    assert "还没有" in tool_messages[0]["content"], "the brief does not exist yet, and the tool says so"
    history = await outcome.handle.fetch_history()
    tool_activities = [
        event.activity_task_scheduled_event_attributes.activity_type.name
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
    ]
    assert tool_activities.count("content.supervisor_tool") == 2


# ---- shouldContinueResearch() ----


async def test_research_tool_calls_loop_until_the_findings(scripted: ContentHarness, loopback: Loopback) -> None:
    findings = {
        "items": [{"claim": "67% 的上班族每天喝咖啡", "source": "note-1", "kind": "statistic"}],
        "bodyBlocks": [{"id": "b1", "heading": "上班族与咖啡", "points": ["67% 每天喝咖啡"]}],
        "summary": "1 条证据",
    }
    loopback.queue(
        decide("brief_compiler_agent"),
        REFUSED,
        decide("research_evidence_agent"),
        tools(("s1", "search_notes", {"query": "上班族 咖啡"})),
        tools(("e1", "extract_facts", {"note_id": "note-1"})),
        chat_completion(findings),
    )

    outcome = await scripted.run(TOPIC, max_iterations=2)

    assert outcome.path[3:8] == [
        "research_evidence_agent",
        "research_evidence_tools",
        "research_evidence_agent",
        "research_evidence_tools",
        "research_evidence_agent",
    ]
    assert outcome.path[8] == "supervisor"
    pack = outcome.state.evidence_pack
    assert pack is not None and pack.count == 1 and pack.from_notes == 1
    assert outcome.state.body_blocks[0].heading == "上班族与咖啡"
    searched = json.loads(loopback.requests[4].json()["messages"][-1]["content"])
    assert searched, "the search found the note about office workers"


# ---- shouldContinueImage() ----


async def test_the_image_loop_returns_to_the_supervisor_after_ten_tool_calls(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    """A model that keeps calling tools for plans that do not exist: 4 calls, then 8 (only 6 run), then back."""
    bogus = [(f"g{i}", "generate_image", {"plan_id": f"p{50 + i}"}) for i in range(12)]
    loopback.queue(decide("brief_compiler_agent"), REFUSED, decide("image_planner_agent"), REFUSED)
    loopback.queue(decide("image_agent"), tools(*bogus[:4]), tools(*bogus[4:12]), tools(*bogus[:1]))

    outcome = await scripted.run(TOPIC, max_iterations=3)

    image_part = outcome.path[outcome.path.index("image_agent") :]
    assert image_part[:6] == ["image_agent", "image_tools", "image_agent", "image_tools", "image_agent", "supervisor"]
    calls = outcome.of_type("tool_call")
    assert len([call for call in calls if call.data["loop"] == "image"]) == 10
    assert all(event.data["isError"] for event in outcome.of_type("tool_result") if event.data["loop"] == "image")
    assert any("上限 10" in event.data["message"] for event in outcome.of_type("thought_log"))
    assert outcome.state.generated_image_asset_ids == {}


async def test_the_image_loop_returns_once_every_plan_has_its_image(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(decide("brief_compiler_agent"), REFUSED, decide("image_planner_agent"), REFUSED)
    loopback.queue(decide("image_agent"), tools(("g1", "generate_image", {"plan_id": "p1"})))

    outcome = await scripted.run(TOPIC, max_iterations=3)

    image_part = outcome.path[outcome.path.index("image_agent") :]
    assert image_part[:4] == ["image_agent", "image_tools", "image_agent", "supervisor"], "imagesComplete: back"
    plans = outcome.state.image_plans
    assert [plan.plan_id for plan in plans] == ["p1"]
    assert set(outcome.state.generated_image_asset_ids) == {"p1"}


async def test_an_image_turn_without_tool_calls_is_nudged_to_call_its_tool(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(decide("brief_compiler_agent"), REFUSED, decide("image_planner_agent"), REFUSED)
    loopback.queue(
        decide("image_agent"), no_decision("我先不生成图片。"), tools(("g1", "generate_image", {"plan_id": "p1"}))
    )

    outcome = await scripted.run(TOPIC, max_iterations=3)

    nudged = loopback.requests[6].json()["messages"]
    assert nudged[-2] == {"role": "assistant", "content": "我先不生成图片。"}
    assert "请调用 generate_image" in nudged[-1]["content"] and "p1" in nudged[-1]["content"]
    assert list(outcome.state.generated_image_asset_ids) == ["p1"]
    assert "image_agent" not in outcome.state.metadata.degraded


async def test_the_image_turn_reads_the_posts_whole_text_with_the_plans(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    # Seed 001: images are generated with the full text as context (no paragraph-image binding); before, the image
    # model saw only the plans (and, later, not the user's topic its prompt tells it to draw from).
    loopback.queue(decide("brief_compiler_agent"), REFUSED, decide("writer_agent"), REFUSED)
    loopback.queue(decide("image_planner_agent"), REFUSED, decide("image_agent"))
    loopback.queue(tools(("g1", "generate_image", {"plan_id": "p1"})))

    outcome = await scripted.run(TOPIC, max_iterations=4)

    content = outcome.state.generated_content
    assert content is not None
    asked = loopback.requests[7].json()["messages"][-1]["content"]
    assert "帖子全文" in asked and content.title in asked and content.body[:200] in asked
    assert f"用户话题：{TOPIC}" in asked
    assert "还没有图片的配图计划" in asked and "p1" in asked


async def test_an_image_agent_that_still_calls_no_tool_degrades_to_the_offline_images_and_says_so(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(decide("brief_compiler_agent"), REFUSED, decide("image_planner_agent"), REFUSED)
    loopback.queue(decide("image_agent"), no_decision("我先不生成图片。"), no_decision("还是不生成。"))

    outcome = await scripted.run(TOPIC, max_iterations=3)

    [degraded] = [event.data for event in outcome.of_type("error") if event.node == "image_agent"]
    assert degraded["code"] == "AGENT_DEGRADED" and "generate_image" in degraded["message"]
    assert list(outcome.state.generated_image_asset_ids) == ["p1"], "the offline turn drew the missing image"
    assert outcome.state.metadata.degraded[-1] == "image_agent"


# ---- shouldContinueReview() and the quality fallback table ----


@pytest.mark.parametrize("dimension", list(QualityDimension), ids=[d.value for d in QualityDimension])
async def test_a_low_quality_dimension_falls_back_to_its_agent(
    scripted: ContentHarness, loopback: Loopback, dimension: QualityDimension
) -> None:
    """The review scores one dimension low: the run goes back to the Supervisor, which is told the table's row;
    its offline policy (the LLM refused here) takes exactly that row's agent."""
    loopback.queue(*offline_steps(6), REFUSED, review(low(dimension), approved=False))
    loopback.queue(REFUSED)  # the Supervisor's 8th turn: its offline policy decides
    if QUALITY_FALLBACK[dimension] is not AgentName.REFERENCE_INTELLIGENCE:  # it measures pixels, with no LLM
        loopback.queue(REFUSED)

    outcome = await scripted.run(TOPIC, max_iterations=8)

    expected = QUALITY_FALLBACK[dimension]
    result = outcome.of_type("review_result")[0].data
    assert result["fallback"] == {"dimension": dimension.value, "score": 0.3, "agent": expected.value}
    review_at = outcome.path.index("review_agent")
    assert outcome.path[review_at + 1 : review_at + 3] == ["supervisor", expected.value]
    assert outcome.state.metadata.fallbacks_tried == {dimension.value: 1}


async def test_the_llm_supervisor_reads_the_fallback_row_in_its_prompt(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(*offline_steps(6), REFUSED, review(low(QualityDimension.READABILITY, 0.42), approved=False))
    loopback.queue(decide("writer_agent", "拆分长句"), REFUSED)

    outcome = await scripted.run(TOPIC, max_iterations=8)

    prompt = supervisor_prompts(loopback)[-1]
    assert "质量回退建议：readability=0.42 偏低 → writer_agent" in prompt
    assert outcome.decisions[-1].routed_to == AgentName.WRITER


async def test_an_approved_review_with_every_dimension_passing_ends_the_run(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(*offline_steps(6), REFUSED, review(GOOD_SCORES, approved=True))

    outcome = await scripted.run(TOPIC)

    assert outcome.path[-3:] == ["review_agent", "finalize", "done"]
    assert outcome.state.metadata.end_reason == "approved"


async def test_an_approval_before_the_images_are_drawn_goes_back_to_the_supervisor(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    """A Supervisor that asks for the review before the images (seed 001 asks the review for the body only): the
    approval does not end a post whose images are missing; the Supervisor goes on to them."""
    loopback.queue(decide("brief_compiler_agent"), REFUSED, decide("writer_agent"), REFUSED)
    loopback.queue(decide("review_agent"), review(GOOD_SCORES, approved=True), *offline_steps(6))

    outcome = await scripted.run(TOPIC, max_iterations=9)

    review_at = outcome.path.index("review_agent")
    assert outcome.path[review_at + 1] == "supervisor"
    said = [e.data["message"] for e in outcome.of_type("thought_log") if e.data["node"] == "review_agent"]
    assert any("审核通过，但还不能结束" in message and "配图未完成" in message for message in said)
    assert outcome.path.index("image_agent") > review_at
    assert outcome.path[-3:] == ["review_agent", "finalize", "done"]  # reviewed again, with its images
    post = outcome.result.post
    assert outcome.state.metadata.end_reason == "approved" and post is not None and post.complete


async def test_an_approval_with_a_low_dimension_is_not_enough(scripted: ContentHarness, loopback: Loopback) -> None:
    """`approved && isQualityApproved()`: the reviewer's yes alone does not end the run."""
    loopback.queue(*offline_steps(6), REFUSED, review(low(QualityDimension.INFO_DENSITY, 0.5), approved=True))
    loopback.queue(REFUSED, REFUSED)

    outcome = await scripted.run(TOPIC, max_iterations=8)

    review_at = outcome.path.index("review_agent")
    assert outcome.path[review_at + 1 : review_at + 3] == ["supervisor", "research_evidence_agent"]


# ---- iterationCount / maxIterations ----


async def test_max_iterations_ends_the_run_with_what_exists_and_says_why(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    """A post with no text is no success: the run ends `failed` (POST_EMPTY) and says what is missing and why."""
    loopback.queue(*offline_steps(3))

    outcome = await scripted.run(TOPIC, max_iterations=3)

    assert outcome.result.status == "failed"
    assert outcome.state.iteration_count == 3
    assert outcome.state.metadata.end_reason == "max_iterations"
    post = outcome.of_type("post_ready")[0].data
    assert post["complete"] is False and "maxIterations=3" in post["endMessage"]
    assert outcome.state.creative_brief is not None, "what exists is kept"
    assert outcome.types[-3:] == ["post_ready", "error", "done"]
    error = outcome.of_type("error")[-1].data
    assert error["code"] == "POST_EMPTY" and "正文未完成" in error["message"] and "maxIterations=3" in error["message"]
    assert outcome.of_type("done")[0].data["status"] == "failed"


async def test_an_english_run_that_reaches_max_iterations_says_so_in_english(
    scripted: ContentHarness, loopback: Loopback
) -> None:
    loopback.queue(*offline_steps(2))

    outcome = await scripted.run("Packing light for a weekend trip", max_iterations=2)

    assert outcome.state.metadata.end_message == "Reached maxIterations=2: the run ends with what it has"
