"""Seed 001's routing functions, as pure functions over a state: every row of every table."""

import pytest
from temporalio.exceptions import ApplicationError

from models.content.agents import END, QUALITY_FALLBACK, AgentName, StatePatch, SupervisorDecision
from models.content.artifacts import (
    CreativeBrief,
    GeneratedContent,
    ImagePlan,
    QualityDimension,
    QualityScores,
    ReviewFeedback,
)
from models.content.state import ContentMetadata, ContentState
from workflows.content.patches import apply_patch
from workflows.content.progress import artifact_status
from workflows.content.routing import (
    IMAGE_TOOL_CALL_LIMIT,
    can_end,
    check_basic_preconditions,
    end_refused_after_review,
    quality_fallback,
    route_from_supervisor,
    should_continue_image,
    should_continue_research,
    should_continue_review,
    should_continue_supervisor,
)

BRIEF = CreativeBrief(topic="咖啡", platform="weibo", audience="上班族", tone="轻松", key_messages=["提神"])
PLAN = ImagePlan(plan_id="p1", slot="cover", prompt="一杯咖啡", width=768, height=1024, seed=1)
SCORES = QualityScores(
    info_density=0.9, text_image_alignment=0.9, style_consistency=0.9, readability=0.9, platform_fit=0.9
)


def state(**fields: object) -> ContentState:
    return ContentState.model_validate(
        {
            "max_iterations": 20,
            "thread_id": "t",
            "creative_id": "c",
            "metadata": ContentMetadata(start_time="2026-01-01T00:00:00Z"),
        }
        | fields
    )


def complete() -> ContentState:
    return state(
        creative_brief=BRIEF,
        generated_content=GeneratedContent(title="t", body="正文"),
        image_plans=[PLAN],
        generated_image_asset_ids={"p1": "blob:images/x.png"},
        review_feedback=ReviewFeedback(approved=False, summary="s"),
    )


def decision(agent: str) -> SupervisorDecision:
    return SupervisorDecision(next_agent=agent)


@pytest.mark.parametrize("answer", [None, decision(""), decision("  "), decision("unknown_agent")])
def test_no_decision_goes_back_to_the_supervisor(answer: SupervisorDecision | None) -> None:
    route = route_from_supervisor(answer, state())
    assert (route.target, route.rule) == ("supervisor", "no_decision")


def test_end_goes_back_to_the_supervisor_until_the_run_can_end() -> None:
    refused = route_from_supervisor(decision(END), state(creative_brief=BRIEF))
    assert (refused.target, refused.rule) == ("supervisor", "end_refused")
    ended = route_from_supervisor(decision(END), complete())
    assert (ended.target, ended.rule) == (END, "end")


@pytest.mark.parametrize(
    ("target", "given", "fallback"),
    [
        (AgentName.WRITER, {}, AgentName.BRIEF_COMPILER),
        (AgentName.REVIEW, {"generated_content": GeneratedContent(title="t", body="  ")}, AgentName.WRITER),
        (AgentName.IMAGE, {}, AgentName.IMAGE_PLANNER),
    ],
)
def test_each_precondition_row_has_its_fallback(
    target: AgentName, given: dict[str, object], fallback: AgentName
) -> None:
    assert check_basic_preconditions(target, state(**given)) is fallback
    route = route_from_supervisor(decision(target.value), state(**given))
    assert (route.target, route.rule) == (fallback, "precondition")


@pytest.mark.parametrize(
    ("target", "given"),
    [
        (AgentName.WRITER, {"creative_brief": BRIEF}),
        (AgentName.REVIEW, {"generated_content": GeneratedContent(title="t", body="正文")}),
        (AgentName.IMAGE, {"image_plans": [PLAN]}),
        (AgentName.LAYOUT_PLANNER, {}),
    ],
)
def test_a_decision_with_its_precondition_is_used(target: AgentName, given: dict[str, object]) -> None:
    route = route_from_supervisor(decision(target.value), state(**given))
    assert (route.target, route.rule) == (target, "decision")


def test_should_continue_supervisor_and_research() -> None:
    assert should_continue_supervisor(2) == "supervisor_tools"
    assert should_continue_supervisor(0) == "route"
    assert should_continue_research(1) == "research_evidence_tools"
    assert should_continue_research(0) == "supervisor"


@pytest.mark.parametrize(
    ("complete_", "calls", "made", "expected"),
    [
        (True, 3, 0, "supervisor"),
        (False, 1, IMAGE_TOOL_CALL_LIMIT - 1, "image_tools"),
        (False, 1, IMAGE_TOOL_CALL_LIMIT, "supervisor"),
        (False, 0, 0, "supervisor"),
    ],
    ids=["imagesComplete", "tool calls under 10", "tool calls at 10", "otherwise"],
)
def test_should_continue_image(complete_: bool, calls: int, made: int, expected: str) -> None:
    assert should_continue_image(complete_, calls, made) == expected


def test_should_continue_review_needs_approval_and_every_dimension() -> None:
    assert should_continue_review(True, SCORES) == END
    assert should_continue_review(False, SCORES) == "supervisor"
    assert should_continue_review(True, SCORES.model_copy(update={"readability": 0.59})) == "supervisor"
    assert should_continue_review(True, None) == "supervisor"


@pytest.mark.parametrize("dimension", list(QualityDimension))
def test_the_quality_fallback_row_of_each_dimension(dimension: QualityDimension) -> None:
    field = {
        QualityDimension.INFO_DENSITY: "info_density",
        QualityDimension.TEXT_IMAGE_ALIGNMENT: "text_image_alignment",
        QualityDimension.STYLE_CONSISTENCY: "style_consistency",
        QualityDimension.READABILITY: "readability",
        QualityDimension.PLATFORM_FIT: "platform_fit",
    }[dimension]
    fallback = quality_fallback(SCORES.model_copy(update={field: 0.2}))
    assert fallback is not None and (fallback.dimension, fallback.agent) == (dimension, QUALITY_FALLBACK[dimension])


def test_the_lowest_dimension_wins_and_passing_scores_have_no_fallback() -> None:
    scores = SCORES.model_copy(update={"readability": 0.5, "platform_fit": 0.1})
    fallback = quality_fallback(scores)
    assert fallback is not None and fallback.agent is AgentName.WRITER
    assert quality_fallback(SCORES) is None


def test_can_end_needs_text_every_image_and_a_review() -> None:
    assert can_end(complete())
    assert not can_end(complete().model_copy(update={"generated_image_asset_ids": {}}))
    assert not can_end(complete().model_copy(update={"review_feedback": None}))


def test_an_output_older_than_what_it_depends_on_is_stale() -> None:
    run = complete()
    run.metadata.written_at = {"brief_compiler_agent": 1, "research_evidence_agent": 2, "writer_agent": 3}
    assert artifact_status(AgentName.WRITER, run) == "done"
    run.metadata.written_at["research_evidence_agent"] = 4
    assert artifact_status(AgentName.WRITER, run) == "stale"
    assert artifact_status(AgentName.LAYOUT_PLANNER, run) == "missing"


def test_a_patch_outside_the_agents_own_fields_is_refused() -> None:
    run = state()
    with pytest.raises(ApplicationError) as raised:
        apply_patch(run, AgentName.WRITER, StatePatch(creative_brief=BRIEF))
    assert raised.value.type == "AGENT_FIELD_NOT_OWNED" and raised.value.non_retryable
    assert run.creative_brief is None
    assert apply_patch(run, AgentName.BRIEF_COMPILER, StatePatch(creative_brief=BRIEF)) == ["creative_brief"]
    assert run.creative_brief == BRIEF


def test_end_after_a_failed_review_waits_for_the_fallbacks_of_a_low_dimension() -> None:
    low = SCORES.model_copy(update={"readability": 0.3})

    assert end_refused_after_review(complete().model_copy(update={"quality_scores": low})) is not None


def test_end_after_a_review_that_failed_with_every_dimension_passing_is_not_refused() -> None:
    """No dimension has a fallback to take, so waiting for two fallbacks would refuse END for ever."""
    assert end_refused_after_review(complete().model_copy(update={"quality_scores": SCORES})) is None
