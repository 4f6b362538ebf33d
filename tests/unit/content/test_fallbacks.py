"""`workflows.content.fallbacks` as pure functions: a fallback is judged once its agent ran (same output → the
dimension cannot improve), then once a review came after it (no higher score → cannot improve, higher → cleared);
the run may end only when every failing dimension cannot improve, and the quality fallback skips those; an
output that came back the same is not a write and is not stale. The agent a fallback runs is told what to fix
(`fix_for`), and its model prompt says it (`fix_lines`)."""

from activities.content.prompts import agent_input
from models.content.agents import AgentName, AgentRequest, ContentView, StatePatch
from models.content.artifacts import QualityDimension, ReviewFeedback
from models.content.state import ContentState
from models.content.turns import QualityFallback
from tests.unit.content.test_routing_rules import SCORES, complete
from workflows.content.fallbacks import cannot_improve_message, fix_for, judge, remember
from workflows.content.patches import apply_patch
from workflows.content.progress import artifact_status
from workflows.content.routing import quality_fallback

DENSITY = QualityDimension.INFO_DENSITY
LOW = SCORES.model_copy(update={"info_density": 0.2})


def sent_back(iteration: int = 8) -> ContentState:
    """A failed review (infoDensity 0.2) and the run sent back to research in `iteration`."""
    run = complete().model_copy(update={"quality_scores": LOW, "iteration_count": iteration})
    run.metadata.written_at = {"research_evidence_agent": 2, "review_agent": 7}
    run.metadata.ran_at = {"research_evidence_agent": 2, "review_agent": 7}
    remember(run, QualityFallback(dimension=DENSITY, score=0.2, agent=AgentName.RESEARCH_EVIDENCE))
    return run


def test_a_fallback_whose_agent_gave_back_the_same_output_cannot_improve() -> None:
    run = sent_back()
    judge(run)
    assert run.metadata.fallback_pending is not None  # research has not run yet

    run.metadata.ran_at["research_evidence_agent"] = 8
    judge(run)

    assert "与之前相同" in run.metadata.cannot_improve[DENSITY.value] and run.metadata.fallback_pending is None
    assert quality_fallback(LOW, run.metadata.cannot_improve) is None
    message = cannot_improve_message(run, offline=True)
    assert message is not None and message.startswith("离线模式无法改进：信息密度 0.20") and "请补充笔记" in message


def test_a_fallback_is_judged_by_the_next_reviews_score() -> None:
    same = sent_back()
    same.metadata.written_at["research_evidence_agent"] = same.metadata.ran_at["research_evidence_agent"] = 8
    judge(same)
    assert same.metadata.fallback_pending is not None  # no review since

    same.metadata.ran_at["review_agent"] = 12
    judge(same)
    assert same.metadata.cannot_improve[DENSITY.value] == "回退到调研取证后得分仍为 0.20"

    better = sent_back()
    better.metadata.written_at["research_evidence_agent"] = better.metadata.ran_at["research_evidence_agent"] = 8
    better.metadata.ran_at["review_agent"] = 12
    better.quality_scores = SCORES.model_copy(update={"info_density": 0.4})
    judge(better)
    assert not better.metadata.cannot_improve and better.metadata.fallback_pending is None
    assert cannot_improve_message(better, offline=True) is None


def test_the_run_ends_only_when_every_failing_dimension_cannot_improve() -> None:
    run = sent_back()
    run.quality_scores = LOW.model_copy(update={"platform_fit": 0.3})
    run.metadata.cannot_improve = {DENSITY.value: "回退到调研取证后得分仍为 0.20"}

    assert cannot_improve_message(run, offline=False) is None
    fallback = quality_fallback(run.quality_scores, run.metadata.cannot_improve)
    assert fallback is not None and fallback.dimension is QualityDimension.PLATFORM_FIT


def test_an_output_that_came_back_the_same_is_not_a_write_and_not_stale() -> None:
    run = complete()
    run.metadata.written_at = {"brief_compiler_agent": 1, "research_evidence_agent": 2, "writer_agent": 1}
    assert artifact_status(AgentName.WRITER, run) == "stale"
    run.iteration_count = 3

    written = apply_patch(
        run, AgentName.WRITER, StatePatch(generated_content=run.generated_content), unchanged_kept=True
    )

    assert written == [] and run.metadata.written_at["writer_agent"] == 1 and run.metadata.ran_at["writer_agent"] == 3
    assert artifact_status(AgentName.WRITER, run) == "done"


def test_the_agent_a_fallback_runs_gets_the_dimension_s_findings_and_its_prompt_says_them() -> None:
    run = sent_back()
    findings = {DENSITY.value: "前 5 条证据中正文用到了 1 条（至少应用 3 条）；段落中 4/6 句是模板套话"}
    run.review_feedback = ReviewFeedback(approved=False, summary="s", findings=findings)

    fix = fix_for(run, AgentName.RESEARCH_EVIDENCE)

    assert fix is not None and (fix.dimension, fix.score) == (DENSITY, 0.2)
    assert fix.findings == ["前 5 条证据中正文用到了 1 条（至少应用 3 条）", "段落中 4/6 句是模板套话"]
    assert fix_for(run, AgentName.WRITER) is None, "only the agent the fallback went to"
    prompt = agent_input(AgentRequest(agent=AgentName.RESEARCH_EVIDENCE, view=ContentView(topic="t"), fix=fix))
    assert "质量回退：审核的信息密度（infoDensity）得分 0.20" in prompt
    assert "- 段落中 4/6 句是模板套话" in prompt
    run.iteration_count += 1
    assert fix_for(run, AgentName.RESEARCH_EVIDENCE) is None, "not once the run moved on"


def test_a_model_review_without_findings_passes_its_issues_that_name_the_dimension() -> None:
    run = sent_back()
    issues = ["信息密度偏低：没有数据", "标题太长"]
    run.review_feedback = ReviewFeedback(approved=False, summary="s", issues=issues)

    fix = fix_for(run, AgentName.RESEARCH_EVIDENCE)

    assert fix is not None and fix.findings == ["信息密度偏低：没有数据"]


def test_an_english_post_is_told_why_in_english() -> None:
    run = sent_back()
    run.review_feedback = ReviewFeedback(approved=False, summary="s", findings={DENSITY.value: "no evidence to check"})
    run.metadata.ran_at["research_evidence_agent"] = 8
    judge(run, english=True)

    message = cannot_improve_message(run, offline=True, english=True)

    assert message == (
        "Offline mode cannot improve this: information density 0.20 (no evidence to check): "
        "the research gave back the same result. Add notes or connect a language model"
    )
