"""The JSON-answering agents with an LLM (issue 31): the brainstorm's options reach the run as `content` while the
model writes them, as readable lines, not braces; the options the chain stores are the parsed answer; an answer
repaired in the JSON question's repair round, and a retried attempt, each restart the text shown; reasoning
(`<think>`) before the JSON is never shown."""

import json
from typing import Any

from temporalio.client import WorkflowHandle

from tests.llm.answers import chat_completion, chat_stream
from tests.llm.loopback import Loopback
from tests.workflows.harness import question_of
from tests.workflows.streaming import cut_stream, shown_text, streamed, streamed_while_running
from tests.workflows.writing.harness import WritingHarness, WritingOutcome
from tests.workflows.writing.test_chains import BRAINSTORM, choose
from tests.workflows.writing.test_llm_agents import llm_project, llm_writing  # noqa: F401 (fixtures)

IDEAS = {
    "options": [
        {"id": "A", "title": "怀表里的胶卷", "summary": "老陈把证据藏在怀表里"},
        {"id": "B", "title": "苏念的父亲", "summary": "走私船的主人是苏念的父亲"},
    ],
    "text": "两个方向，请选择。",
}
SHOWN = "A. 怀表里的胶卷：老陈把证据藏在怀表里\nB. 苏念的父亲：走私船的主人是苏念的父亲\n\n两个方向，请选择。"
"""`IDEAS` as the run shows it."""


async def brainstorm_chain(harness: WritingHarness, project: str) -> tuple[WritingOutcome, WorkflowHandle[Any, Any]]:
    handle = await harness.start(project, BRAINSTORM)
    await question_of(handle)
    await choose(handle, "A")
    return await harness.finish(handle), handle


def brainstorm_content(outcome: WritingOutcome) -> list[dict[str, Any]]:
    return [e.data for e in outcome.of_type("content") if e.data["agent"] == "brainstorm"]


async def test_the_brainstorms_options_stream_as_readable_content_before_its_call_returns(
    llm_writing: WritingHarness,  # noqa: F811
    llm_project: str,  # noqa: F811
    loopback: Loopback,
) -> None:
    loopback.queue(chat_stream(streamed(IDEAS)), chat_stream(["林舟打开怀表。"]), chat_completion({"issues": []}))

    outcome, handle = await brainstorm_chain(llm_writing, llm_project)

    pieces = brainstorm_content(outcome)
    assert len(pieces) > 1 and pieces[0]["text"].startswith("A"), "the first words go at once, the rest as written"
    assert shown_text(pieces) == SHOWN and "{" not in SHOWN
    steps = outcome.state.chain.steps  # type: ignore[union-attr]
    assert [option.model_dump() for option in steps[0].options] == IDEAS["options"], "stored as parsed"
    assert steps[0].text == IDEAS["text"]
    assert await streamed_while_running(handle, "writing.brainstorm"), "streamed while the call ran"


async def test_an_answer_repaired_in_the_repair_round_restarts_the_text_shown(
    llm_writing: WritingHarness,  # noqa: F811
    llm_project: str,  # noqa: F811
    loopback: Loopback,
) -> None:
    one_option = {"options": IDEAS["options"][:1], "text": "只有一个方向。"}  # at least two are required
    loopback.queue(
        chat_stream(streamed(one_option)),
        chat_stream(streamed(IDEAS)),
        chat_stream(["林舟打开怀表。"]),
        chat_completion({"issues": []}),
    )

    outcome, _ = await brainstorm_chain(llm_writing, llm_project)

    pieces = brainstorm_content(outcome)
    assert pieces[0]["text"].startswith("A") and sum(bool(p["restart"]) for p in pieces) == 1
    assert shown_text(pieces) == SHOWN
    assert [o.id for o in outcome.state.chain.steps[0].options] == ["A", "B"]  # type: ignore[union-attr]


async def test_a_retried_attempt_restarts_the_brainstorms_text(
    llm_writing: WritingHarness,  # noqa: F811
    llm_project: str,  # noqa: F811
    loopback: Loopback,
) -> None:
    other = {"options": [{"id": "X", "title": "旧的方向", "summary": "作废"}] * 2, "text": "作废"}
    loopback.queue(
        cut_stream(streamed(other)[:6]),
        chat_stream(streamed(IDEAS)),
        chat_stream(["林舟打开怀表。"]),
        chat_completion({"issues": []}),
    )

    outcome, _ = await brainstorm_chain(llm_writing, llm_project)

    pieces = brainstorm_content(outcome)
    assert pieces[0]["text"].startswith("X") and pieces[0]["attempt"] == 1
    restarted = [p for p in pieces if p["restart"]]
    assert len(restarted) == 1 and restarted[0]["attempt"] == 2
    assert shown_text(pieces) == SHOWN


async def test_reasoning_before_the_json_is_never_shown(
    llm_writing: WritingHarness,  # noqa: F811
    llm_project: str,  # noqa: F811
    loopback: Loopback,
) -> None:
    thinking = '<think>先想结构：{"options": [{"id": "Z", "title": "草稿"}]}</think>\n\n'
    loopback.queue(
        chat_stream(streamed(thinking + json.dumps(IDEAS, ensure_ascii=False))),
        chat_stream(["林舟打开怀表。"]),
        chat_completion({"issues": []}),
    )

    outcome, _ = await brainstorm_chain(llm_writing, llm_project)

    pieces = brainstorm_content(outcome)
    assert not any(p["restart"] for p in pieces) and shown_text(pieces) == SHOWN
    assert "草稿" not in "".join(p["text"] for p in pieces)


async def test_the_consistency_agents_findings_stream_as_lines_and_its_issues_are_the_parsed_ones(
    llm_writing: WritingHarness,  # noqa: F811
    llm_project: str,  # noqa: F811
    loopback: Loopback,
) -> None:
    review = {
        "issues": [{"kind": "trait_conflict", "severity": "warning", "message": "林舟是蓝眼睛", "excerpt": "林舟"}],
        "text": "前两章大体一致。",
    }
    loopback.queue(chat_stream(streamed(review)))

    outcome = await llm_writing.run(llm_project, "检查一下前两章有没有前后矛盾")

    pieces = [e.data for e in outcome.of_type("content") if e.data["agent"] == "consistency"]
    assert len(pieces) > 1 and shown_text(pieces) == "- 林舟是蓝眼睛\n\n前两章大体一致。"
    result = outcome.state.result
    assert result is not None and result.text == "前两章大体一致。" and result.streamed
    assert "林舟是蓝眼睛" in [issue.message for issue in result.issues]
