"""The choices the LLM Supervisor is offered each turn (`useful_choices`) and the answers it may give."""

import pytest
from pydantic import ValidationError

from activities.content.agents import ImagePlansAnswer
from activities.content.supervisor import NEXT_AGENTS, decision_instructions, read_decision, useful_choices
from models.content.agents import END, AgentName, ContentView
from models.content.artifacts import QualityDimension
from models.content.turns import Progress, QualityFallback

VIEW = ContentView(topic="咖啡")


def progress(done: set[AgentName], **fields: object) -> Progress:
    artifacts = {agent: "done" if agent in done else "missing" for agent in AgentName}
    values: dict[str, object] = {
        "artifacts": artifacts,
        "can_end": False,
        "images_complete": False,
        "review_passed": False,
        "iteration_count": 3,
        "max_iterations": 20,
    }
    return Progress.model_validate(values | fields)


def test_a_new_run_is_offered_every_stage_in_the_normal_order_but_reference_analysis_without_references() -> None:
    choices = useful_choices(progress(set()), VIEW)

    assert choices == [
        "brief_compiler_agent",
        "research_evidence_agent",
        "layout_planner_agent",
        "image_planner_agent",
        "writer_agent",
        "image_agent",
        "review_agent",
    ]


def test_reference_analysis_is_offered_when_the_user_gave_references() -> None:
    view = VIEW.model_copy(update={"reference_images": ["blob:uploads/ref.png"]})

    assert "reference_intelligence_agent" in useful_choices(progress(set()), view)


def test_finished_stages_are_not_offered_again_and_a_stale_one_is() -> None:
    done = {AgentName.BRIEF_COMPILER, AgentName.RESEARCH_EVIDENCE, AgentName.WRITER}
    stale = progress(done).artifacts | {AgentName.WRITER: "stale"}

    choices = useful_choices(progress(done, artifacts=stale), VIEW)

    assert "brief_compiler_agent" not in choices and "research_evidence_agent" not in choices
    assert "writer_agent" in choices


def test_after_a_failed_review_the_fallback_and_end_are_offered() -> None:
    fallback = QualityFallback(dimension=QualityDimension.READABILITY, score=0.4, agent=AgentName.WRITER)
    reviewed = progress(set(AgentName), can_end=True, quality_fallback=fallback)

    assert useful_choices(reviewed, VIEW) == ["writer_agent", END]


def test_the_turn_s_schema_lists_only_the_choices_and_any_agent_is_still_read() -> None:
    instructions = decision_instructions(["writer_agent", END])

    assert '"enum": ["writer_agent", "END"]' in instructions
    read = read_decision('{"next_agent": "brief_compiler_agent", "guidance": "再整理一次"}')
    assert not isinstance(read, str) and read.next_agent == "brief_compiler_agent"
    assert set(NEXT_AGENTS) >= {"brief_compiler_agent", END}


@pytest.mark.parametrize("ids", [["p1", "p1"], ["p1", "p2", "p2"]])
def test_image_plans_with_a_repeated_id_go_back_to_the_model(ids: list[str]) -> None:
    plans = [
        {"planId": i, "slot": f"s{n}", "prompt": "咖啡", "width": 512, "height": 512, "seed": 1}
        for n, i in enumerate(ids)
    ]

    with pytest.raises(ValidationError, match="repeated"):
        ImagePlansAnswer.model_validate({"plans": plans})
