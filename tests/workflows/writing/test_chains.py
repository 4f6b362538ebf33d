"""Seed 002's chain workflows (Req 13–14) on the time-skipping server, offline: each step gets the previous one's
output, a thought marks each transition, BrainstormExpand waits for the writer's choice (durably: across a worker
restart, and until a deadline), a failing step aborts the chain, and a `chainContext` continues a chain."""

from pathlib import Path
from typing import Any

from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from models.human_input import InputAnswer, ReceivedAnswer
from models.writing.agents import ChainContext
from models.writing.intents import WorkflowKind
from tests.workflows.harness import question_of, settings_for
from tests.workflows.writing.conftest import CHAPTERS, CHARACTERS, PLOT_LOOPS
from tests.workflows.writing.harness import OWNER, WritingHarness, writing_harness
from workflows.common.human_input import INPUT_UPDATE

BRAINSTORM = "先想三个结局方案，我选一个再写"


def what_happens(summary: str) -> str:
    """The first clause of an option's or section's summary: the event the draft narrates."""
    return summary.split("；")[0]


async def choose(handle: WorkflowHandle[Any, Any], option: str) -> ReceivedAnswer:
    received: ReceivedAnswer = await handle.execute_update(
        INPUT_UPDATE, InputAnswer(answer=option), result_type=ReceivedAnswer
    )
    return received


async def test_req_14_5_brainstorm_waits_for_choice_and_the_writer_continues_from_it(
    writing: WritingHarness, project: str
) -> None:
    handle = await writing.start(project, BRAINSTORM)
    question = await question_of(handle)
    assert [option.id for option in question.options] == ["A", "B", "C"]
    chosen = question.options[1]

    await choose(handle, chosen.id)
    outcome = await writing.finish(handle)

    assert outcome.result.status == "completed"
    assert outcome.path == [
        "router",
        "preprocessing",
        "chain_step",
        "user_selection",
        "chain_step",
        "postprocessing",
        "chain_summary",
        "done",
    ]
    required = outcome.one("user_input_required")
    assert [o["id"] for o in required["options"]] == ["A", "B", "C"]
    summary = outcome.state.chain.steps[0].options[1].summary  # type: ignore[union-attr]
    assert chosen.label.endswith(summary)
    assert what_happens(summary) in outcome.result.text, "the chosen option's event happens in the draft"
    assert outcome.types.index("user_input_required") < outcome.types.index("user_input_received")


async def test_req_13_2_and_req_14_2_outline_to_chapter_passes_the_planners_outline_to_the_writer(
    writing: WritingHarness, project: str
) -> None:
    outcome = await writing.run(project, "根据大纲写第三章")

    started = [event.data for event in outcome.of_type("agent_started")]
    assert [(s["agent"], s["step"]) for s in started] == [("planner", 1), ("writer", 2)]
    chain = outcome.state.chain
    assert chain is not None and [step.agent for step in chain.steps] == ["planner", "writer"]
    first_section = outcome.one("structure_update")["sections"][0]["summary"]
    assert what_happens(first_section) in outcome.result.text, "the draft narrates the planner's first section"


async def test_req_14_3_character_to_scene_designs_then_writes_the_character(
    writing: WritingHarness, project: str
) -> None:
    outcome = await writing.run(project, "设计一个反派角色，然后写一段他出场的场景")

    designed = outcome.one("character_design")["characters"][0]["name"]
    assert [s.agent for s in outcome.state.chain.steps] == ["character", "writer"]  # type: ignore[union-attr]
    assert designed in outcome.result.text


async def test_req_14_4_a_thought_marks_each_agent_transition(writing: WritingHarness, project: str) -> None:
    outcome = await writing.run(project, "根据大纲写第三章")

    transitions = [e.data["transition"] for e in outcome.of_type("thought_log") if e.data.get("transition")]
    assert transitions == [["开始", "PlannerAgent"], ["PlannerAgent", "WriterAgent"]]


async def test_req_13_4_a_summary_event_carries_every_steps_output(writing: WritingHarness, project: str) -> None:
    outcome = await writing.run(project, "设计一个反派角色，然后写一段他出场的场景")

    summary = outcome.one("chain_summary")
    assert summary["completed"] is True
    assert [step["agent"] for step in summary["steps"]] == ["character", "writer"]
    assert summary["steps"][1]["text"] == outcome.result.text
    assert outcome.types[-2:] == ["chain_summary", "done"]


async def test_req_13_3_a_failing_step_aborts_the_chain_with_an_error_naming_it(
    writing: WritingHarness, project: str
) -> None:
    """The project is deleted while the chain waits: the Writer step cannot read it and the chain stops there, with
    the PROJECT_NOT_FOUND every run on a deleted project ends with (issue 26 row 7), in a message naming the step."""
    handle = await writing.start(project, BRAINSTORM)
    await question_of(handle)
    writing.projects.delete_project(OWNER, project)
    await choose(handle, "A")
    outcome = await writing.finish(handle)

    assert outcome.result.status == "failed"
    error = outcome.of_type("error")[-1].data
    assert error["code"] == "PROJECT_NOT_FOUND" and "WriterAgent" in error["message"] and "2" in error["message"]
    summary = outcome.one("chain_summary")
    assert summary["completed"] is False and [s["agent"] for s in summary["steps"]] == ["brainstorm"]
    assert outcome.types[-1] == "done"


async def test_req_13_5_an_unanswered_choice_ends_cleanly_at_its_deadline(
    writing: WritingHarness, project: str
) -> None:
    handle = await writing.start(project, BRAINSTORM, input_timeout_seconds=3600)
    outcome = await writing.finish(handle)  # the time-skipping server jumps to the deadline

    assert outcome.types[-4:] == ["user_input_expired", "error", "chain_summary", "done"]
    assert outcome.of_type("error")[-1].data["code"] == "INPUT_EXPIRED"
    summary = outcome.one("chain_summary")
    assert summary["chainContext"]["steps"][0]["options"], "the options are kept to continue later"


async def test_req_14_6_and_req_14_7_a_chain_context_continues_the_chain_with_the_writers_choice(
    writing: WritingHarness, project: str
) -> None:
    expired = await writing.finish(await writing.start(project, BRAINSTORM, input_timeout_seconds=60))
    chain = ChainContext.model_validate(expired.one("chain_summary")["chainContext"])
    option_c = chain.steps[0].options[2]

    outcome = await writing.run(project, "C", chain_context=chain)

    recognized = outcome.one("intent_recognized")
    assert recognized["continuedChain"] is True and recognized["workflow"] == WorkflowKind.BRAINSTORM_EXPAND
    assert outcome.path == ["preprocessing", "chain_step", "postprocessing", "chain_summary", "done"]
    assert "user_input_required" not in outcome.types
    assert what_happens(option_c.summary) in outcome.result.text


async def test_a_waiting_chain_survives_a_worker_restart(dev_env: WorkflowEnvironment, tmp_path: Path) -> None:
    """The worker stops while the chain waits for the writer; a new worker takes the answer and finishes it. On
    the dev server: the run is sticky to the stopped worker until the server's sticky timeout moves it, which
    the time-skipping server's frozen clock never reaches while a client waits on an update."""
    settings = settings_for(tmp_path)
    env = dev_env
    async with writing_harness(env, tmp_path, settings=settings) as first:
        project = first.project(chapters=CHAPTERS, characters=CHARACTERS, plot_loops=PLOT_LOOPS)
        handle = await first.start(project, BRAINSTORM)
        await question_of(handle)
        first.started.discard(handle.id)  # it must outlive this worker
    async with writing_harness(env, tmp_path, settings=settings) as second:
        second.started.add(handle.id)
        await choose(handle, "A")
        outcome = await second.finish(handle)

    assert outcome.result.status == "completed"
    assert outcome.types.count("user_input_required") == 1 and "chain_summary" in outcome.types


async def test_req_14_5_the_pause_takes_the_writers_own_idea_where_the_question_offers_it(
    writing: WritingHarness, project: str
) -> None:
    """The offline brainstorm invites the writer's own idea: the question says it takes free text, and does."""
    handle = await writing.start(project, BRAINSTORM)
    question = await question_of(handle)
    assert question.allow_free_text and "自己的想法" in question.prompt

    received = await choose(handle, "让林舟独自回到老宅，在灯下翻出那本旧账簿")
    outcome = await writing.finish(handle)

    assert received.option is None and outcome.result.status == "completed"
    assert "林舟独自回到老宅" in outcome.result.text, "the writer's own idea happens in the draft"
    assert outcome.one("user_input_received")["answer"].startswith("让林舟")


async def test_req_14_6_a_chain_continued_after_its_deadline_keeps_the_original_request(
    writing: WritingHarness, project: str
) -> None:
    """Continued with "C", the chain still works on the request that started it: its retrieval and its agent."""
    question = "林舟和苏念在雨夜之后该怎么收场？先想三个结局方案，我选一个再写"
    expired = await writing.finish(await writing.start(project, question, input_timeout_seconds=60))
    chain = ChainContext.model_validate(expired.one("chain_summary")["chainContext"])
    assert chain.request == question

    outcome = await writing.run(project, "C", chain_context=chain)

    context = outcome.state.preprocessing_context
    assert context is not None and context.passages, "retrieval ran on the original request, not on “C”"
    assert "雨夜" in {passage.title for passage in context.passages}
    assert outcome.state.chain is not None and outcome.state.chain.request == question
    assert outcome.state.chain.selection == "C"
