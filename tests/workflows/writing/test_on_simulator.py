"""The writing agents with the model simulator (tests/simulator) as their model: what each agent's prompt carries
of the story so far (issue 25), and a consistency review cut into calls that each fit a budget."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from activities.writing.story_so_far import REVIEW_CHUNK_CHARS, STORY_BUDGET_CHARS
from tests.simulator.profiles import REALISTIC
from tests.simulator.quirks import Quirk, QuirkRule
from tests.simulator.server import LoggedCall, Simulator
from tests.workflows.writing.conftest import CHARACTERS
from tests.workflows.writing.harness import WritingHarness, writing_harness
from workflows.policies import WRITING_CHECK

LLM_MARGIN_SECONDS = 1.0
"""What the LLM-call helper keeps of a node's start-to-close for itself."""


@pytest.fixture
async def simulated(env: WorkflowEnvironment, tmp_path: Path, simulator: Simulator) -> AsyncIterator[WritingHarness]:
    async with writing_harness(env, tmp_path, llm_base_url=simulator.base_url) as harness:
        yield harness


def chapter(number: int, length: int) -> tuple[str, str]:
    """A chapter of about `length` characters that starts with 【N起】 and ends with 【N终】."""
    filler = "雨落在码头的铁皮屋顶上，林舟数着船灯。"
    body = (filler * (length // len(filler) + 1))[:length]
    return f"第{number}个雨夜", f"【{number}起】{body}【{number}终】"


def prompt_of(call: LoggedCall) -> str:
    return "\n".join(str(m["content"]) for m in call.body["messages"] if m["role"] == "user")


async def test_issue_25_a_summary_of_a_long_chapter_reads_its_end_too(
    simulated: WritingHarness, simulator: Simulator
) -> None:
    project = simulated.project(chapters=[chapter(1, 30000), chapter(2, 3000)], characters=CHARACTERS)

    outcome = await simulated.run(project, "总结第一章")

    [call] = simulator.log  # "总结" is unambiguous: the router asks no model
    prompt = prompt_of(call)
    assert "【1起】" in prompt and "【1终】" in prompt
    assert len(prompt) < STORY_BUDGET_CHARS * 2
    assert outcome.result.text == call.text and not outcome.state.result.offline  # type: ignore[union-attr]


async def test_issue_25_the_writer_gets_the_chapter_list_and_the_last_chapter_s_ending(
    simulated: WritingHarness, simulator: Simulator
) -> None:
    chapters = [chapter(n, 4000) for n in range(1, 6)]
    project = simulated.project(chapters=chapters, characters=CHARACTERS)

    await simulated.run(project, "改写第二章，让节奏更紧凑")

    writer = next(call for call in simulator.log if call.kind == "prose")
    prompt = prompt_of(writer)
    assert all(f"第{n}章《第{n}个雨夜》" in prompt for n in range(1, 6)), "every chapter is listed"
    assert "【2起】" in prompt and "【2终】" in prompt, "the named chapter"
    assert "【5终】" in prompt, "the last chapter's ending"
    assert len(prompt) < STORY_BUDGET_CHARS * 2


async def test_issue_25_a_consistency_review_of_a_long_book_is_cut_into_calls_within_a_budget(
    simulated: WritingHarness, simulator: Simulator
) -> None:
    chapters = [chapter(n, 9000) for n in range(1, 5)]
    project = simulated.project(chapters=chapters, characters=CHARACTERS)

    outcome = await simulated.run(project, "检查一下前后有没有矛盾")

    reviews = [prompt_of(call) for call in simulator.log if call.kind == "json"]
    assert len(reviews) >= 3
    assert all(len(review) < REVIEW_CHUNK_CHARS + 1000 for review in reviews)
    assert all(any(f"【{n}终】" in review for review in reviews) for n in range(1, 5)), "every chapter is read"
    assert not outcome.state.result.offline  # type: ignore[union-attr]


def stored_texts(harness: WritingHarness, project_id: str) -> list[str]:
    """What the run proposed for the writer's project: world notes (the text the retrieval index is built from once
    the writer accepts them)."""
    proposals = harness.projects.proposals("writer", project_id)
    return [f"{p.item['title']}\n{p.item['content']}" for p in proposals if p.kind == "world_note"]


async def test_issue_25_a_model_that_thinks_aloud_leaves_no_think_in_the_project_or_the_result(
    simulated: WritingHarness, simulator: Simulator
) -> None:
    simulator.quirks = [QuirkRule(Quirk.THINK)]
    project = simulated.project(chapters=[chapter(1, 2000)], characters=CHARACTERS)

    outcome = await simulated.run(project, "帮我设定这个城市的世界观")

    assert simulator.log and all(call.quirk == Quirk.THINK for call in simulator.log)
    stored = stored_texts(simulated, project)
    assert outcome.of_type("knowledge_update") and stored, "the world builder's setting is proposed as a note"
    assert not [text for text in stored if "<think>" in text], "a stored note carries the model's reasoning"
    result = outcome.state.result
    assert result is not None and "<think>" not in result.text and "<think>" not in outcome.content


async def test_issue_25_the_draft_check_gives_a_realistic_model_time_for_its_review(
    simulated: WritingHarness, simulator: Simulator
) -> None:
    project = simulated.project(chapters=[chapter(1, 2000)], characters=CHARACTERS)

    await simulated.run(project, "改写第一章，让节奏更紧凑")

    [review] = [call for call in simulator.log if call.kind == "json"]
    realistic = REALISTIC.generation_time(review.answer_tokens, 1.0)
    room = WRITING_CHECK.start_to_close.total_seconds() / 2  # and room for a review twice as long
    assert realistic + LLM_MARGIN_SECONDS <= room, (
        f"a review of {review.answer_tokens} tokens takes {realistic:.1f} s at the realistic profile"
    )
